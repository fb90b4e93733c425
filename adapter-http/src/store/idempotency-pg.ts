// The PostgreSQL side of idempotency keys (store/idempotency.ts): one table; a claim is one transaction
// (insert if absent, else lock the row and judge it), so two processes racing for one key admit exactly
// one. Leases are on the database's clock, like the reservation heartbeats: the hosts' clocks never matter.
// An answer is stored in one transaction with its use's confirmation (inkprep_confirm, postgres.ts).
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { endedHere, thisInstance } from './instance.js';
import { eachUse, type ReservedUse } from './use.js';
import { isStoreUnavailable } from './unavailable.js';
import { IDEMPOTENCY_WINDOW_MS, ClaimRenewal, answerOf, isLive, type ClaimResult, type IdempotencyClaim, type IdempotencyStore } from './idempotency.js';

/** The schema migration (postgres.ts PG_MIGRATIONS). A row is running while `status` is NULL. */
export const PG_IDEMPOTENCY_SCHEMA = `CREATE TABLE IF NOT EXISTS idempotency_keys (
     account_id TEXT NOT NULL, idem_key TEXT NOT NULL, request_hash TEXT NOT NULL, created_at BIGINT NOT NULL,
     claim TEXT NOT NULL, owner TEXT NOT NULL, host_key TEXT, pid INTEGER NOT NULL, lease_until BIGINT,
     status INTEGER, content_type TEXT, headers TEXT, body BYTEA, body_ref TEXT, expires_at BIGINT,
     PRIMARY KEY (account_id, idem_key));
   CREATE INDEX IF NOT EXISTS idempotency_created ON idempotency_keys(created_at);`;

/** The database's clock in ms (as postgres.ts DB_NOW). */
const DB_NOW = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

interface Row {
  request_hash: string; created_at: string; host_key: string | null; pid: number; expired_lease: boolean;
  status: number | null; content_type: string; headers: string; body: Buffer | null; body_ref: string | null; expires_at: string | null;
}

/** The idempotency store over the PostgreSQL store's pool (migrated). */
export function pgIdempotency(pool: pg.Pool, leaseMs: number): IdempotencyStore {
  const owner = randomBytes(8).toString('hex');
  const me = thisInstance();
  const renewal = new ClaimRenewal(Math.max(100, Math.floor(leaseMs / 3)), (tokens) =>
    pool.query(`UPDATE idempotency_keys SET lease_until = ${DB_NOW} + $1 WHERE owner = $2 AND status IS NULL AND claim = ANY($3::text[])`, [leaseMs, owner, tokens]));
  const COLUMNS = 'account_id, idem_key, request_hash, created_at, claim, owner, host_key, pid, lease_until';
  const VALUES = `$1, $2, $3, $4, $5, $6, $7, $8, ${DB_NOW} + $9`;

  return {
    async claim(r): Promise<ClaimResult> {
      const claim: IdempotencyClaim = { accountId: r.accountId, key: r.key, token: randomBytes(12).toString('hex') };
      const vals = [r.accountId, r.key, r.requestHash, r.now, claim.token, owner, me.hostKey, me.pid, leaseMs];
      const c = await pool.connect();
      try {
        await c.query('BEGIN');
        const ins = await c.query(`INSERT INTO idempotency_keys (${COLUMNS}) VALUES (${VALUES}) ON CONFLICT DO NOTHING`, vals);
        let out: ClaimResult;
        if (ins.rowCount === 1) {
          out = { kind: 'claimed', claim, staleBodyRef: null };
        } else {
          const { rows } = await c.query<Row>(
            `SELECT *, COALESCE(lease_until, 0) < ${DB_NOW} AS expired_lease FROM idempotency_keys WHERE account_id = $1 AND idem_key = $2 FOR UPDATE`, [r.accountId, r.key]);
          const row = rows[0]!;
          const fresh = isLive(row, r.now);
          // A running claim whose process stopped renewing it (or ended on this host) is void.
          const dead = row.status === null && (row.expired_lease || endedHere(row));
          if (fresh && !dead) {
            out = row.request_hash !== r.requestHash ? { kind: 'mismatch' }
              : row.status !== null ? { kind: 'replay', answer: answerOf({ ...row, status: row.status }) }
              : { kind: 'in_progress' };
          } else {
            await c.query(`UPDATE idempotency_keys SET (${COLUMNS}, status, content_type, headers, body, body_ref, expires_at) = (${VALUES}, NULL, NULL, NULL, NULL, NULL, NULL)
                           WHERE account_id = $1 AND idem_key = $2`, vals);
            out = { kind: 'claimed', claim, staleBodyRef: row.body_ref };
          }
        }
        await c.query('COMMIT');
        if (out.kind === 'claimed') renewal.hold(claim.token);
        return out;
      } catch (err) {
        await c.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        c.release();
      }
    },
    async complete(c, a, use: ReservedUse | null) {
      let client: pg.PoolClient | null = null;
      try {
        client = await pool.connect();
        await client.query('BEGIN');
        // Every event of the use (a batch's several): the answer is stored with all of them or none.
        for (const u of use ? eachUse(use) : []) await client.query('SELECT inkprep_confirm($1, $2, $3, $4, $5, $6)', [u.eventId, u.accountId, u.keyId, u.endpoint, u.fairUse, u.at]);
        const r = await client.query(
          `UPDATE idempotency_keys SET status = $4, content_type = $5, headers = $6, body = $7, body_ref = $8, expires_at = $9, lease_until = NULL
            WHERE account_id = $1 AND idem_key = $2 AND claim = $3 AND status IS NULL`,
          [c.accountId, c.key, c.token, a.status, a.contentType, JSON.stringify(a.headers), a.body === null ? null : Buffer.from(a.body.buffer, a.body.byteOffset, a.body.byteLength), a.bodyRef, a.expiresAt]);
        await client.query('COMMIT');
        renewal.drop(c.token);
        return r.rowCount === 1;
      } catch (err) {
        await client?.query('ROLLBACK').catch(() => undefined);
        // While the store is away the claim stays this process's (renewed) until the settler's retry lands.
        if (!isStoreUnavailable(err)) renewal.drop(c.token);
        throw err;
      } finally {
        client?.release();
      }
    },
    async abandon(c) {
      renewal.drop(c.token);
      await pool.query('DELETE FROM idempotency_keys WHERE account_id = $1 AND idem_key = $2 AND claim = $3 AND status IS NULL', [c.accountId, c.key, c.token]);
    },
    async sweep(now) {
      const { rows } = await pool.query<{ body_ref: string | null }>('DELETE FROM idempotency_keys WHERE created_at <= $1 OR expires_at <= $2 RETURNING body_ref', [now - IDEMPOTENCY_WINDOW_MS, now]);
      return { removed: rows.length, bodyRefs: rows.flatMap((r) => (r.body_ref === null ? [] : [r.body_ref])) };
    },
    close() {
      renewal.stop();
    },
  };
}
