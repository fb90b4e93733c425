// The SQLite side of idempotency keys (store/idempotency.ts): one table, a claim in a BEGIN IMMEDIATE
// transaction (atomic across processes sharing the file), leases on this host's wall clock. An answer is
// stored in one transaction with its use's confirmation (the store's own confirm, nested as a savepoint).
import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { endedHere, thisInstance } from './instance.js';
import type { ReservedUse } from './use.js';
import { isStoreUnavailable } from './unavailable.js';
import { IDEMPOTENCY_WINDOW_MS, ClaimRenewal, answerOf, isLive, type ClaimResult, type IdempotencyClaim, type IdempotencyRequest, type IdempotencyStore, type StoredAnswer } from './idempotency.js';

/** The schema migration (sqlite.ts MIGRATIONS). A row is running while `status` is NULL. */
export const SQLITE_IDEMPOTENCY_SCHEMA = `CREATE TABLE idempotency_keys (
     account_id TEXT NOT NULL, idem_key TEXT NOT NULL, request_hash TEXT NOT NULL, created_at INTEGER NOT NULL,
     claim TEXT NOT NULL, owner TEXT NOT NULL, host_key TEXT, pid INTEGER NOT NULL, lease_until INTEGER,
     status INTEGER, content_type TEXT, headers TEXT, body BLOB, body_ref TEXT, expires_at INTEGER,
     PRIMARY KEY (account_id, idem_key));
   CREATE INDEX idempotency_created ON idempotency_keys(created_at);`;

interface Row {
  request_hash: string; created_at: number; host_key: string | null; pid: number; lease_until: number | null;
  status: number | null; content_type: string; headers: string; body: Uint8Array | null; body_ref: string | null; expires_at: number | null;
}

/**
 * The idempotency store over an open SQLite database (migrated). `keep` holds each prepared statement for the
 * process's life (sqlite.ts keepNative: a collected better-sqlite3 statement can abort Node 24). `confirm`
 * is the store's confirmation of a use (a better-sqlite3 transaction function: inside `complete`'s
 * transaction it runs as a savepoint of it).
 */
export function sqliteIdempotency(db: Database.Database, keep: <T extends object>(o: T) => T, leaseMs: number, confirm: (use: ReservedUse) => void): IdempotencyStore {
  const owner = randomBytes(8).toString('hex');
  const me = thisInstance();
  const q = keep({
    get: db.prepare<[string, string], Row>('SELECT * FROM idempotency_keys WHERE account_id = ? AND idem_key = ?'),
    put: db.prepare(`INSERT OR REPLACE INTO idempotency_keys (account_id, idem_key, request_hash, created_at, claim, owner, host_key, pid, lease_until)
                     VALUES (@account, @key, @hash, @now, @claim, @owner, @host_key, @pid, @lease_until)`),
    complete: db.prepare(`UPDATE idempotency_keys SET status = @status, content_type = @content_type, headers = @headers, body = @body, body_ref = @body_ref, expires_at = @expires_at, lease_until = NULL
                          WHERE account_id = @account AND idem_key = @key AND claim = @claim AND status IS NULL`),
    abandon: db.prepare('DELETE FROM idempotency_keys WHERE account_id = ? AND idem_key = ? AND claim = ? AND status IS NULL'),
    renew: db.prepare("UPDATE idempotency_keys SET lease_until = ? WHERE owner = ? AND status IS NULL AND claim IN (SELECT value FROM json_each(?))"),
    sweep: db.prepare<[number, number], { body_ref: string | null }>('DELETE FROM idempotency_keys WHERE created_at <= ? OR expires_at <= ? RETURNING body_ref'),
  });
  const renewal = new ClaimRenewal(Math.max(100, Math.floor(leaseMs / 3)), (tokens) => q.renew.run(Date.now() + leaseMs, owner, JSON.stringify(tokens)));

  const claimTx = db.transaction((r: IdempotencyRequest): ClaimResult => {
    const row = q.get.get(r.accountId, r.key);
    const fresh = row !== undefined && isLive(row, r.now);
    // A running claim whose process stopped renewing it (or ended on this host) is void.
    const dead = row !== undefined && row.status === null && ((row.lease_until ?? 0) < Date.now() || endedHere(row));
    if (row && fresh && !dead) {
      if (row.request_hash !== r.requestHash) return { kind: 'mismatch' };
      if (row.status !== null) return { kind: 'replay', answer: answerOf({ ...row, status: row.status }) };
      return { kind: 'in_progress' };
    }
    const claim: IdempotencyClaim = { accountId: r.accountId, key: r.key, token: randomBytes(12).toString('hex') };
    q.put.run({ account: r.accountId, key: r.key, hash: r.requestHash, now: r.now, claim: claim.token, owner, host_key: me.hostKey, pid: me.pid, lease_until: Date.now() + leaseMs });
    return { kind: 'claimed', claim, staleBodyRef: row?.body_ref ?? null };
  });

  const completeTx = db.transaction((c: IdempotencyClaim, a: StoredAnswer, use: ReservedUse | null): boolean => {
    if (use) confirm(use);
    return q.complete.run({
      account: c.accountId, key: c.key, claim: c.token, status: a.status, content_type: a.contentType, headers: JSON.stringify(a.headers),
      body: a.body === null ? null : Buffer.from(a.body.buffer, a.body.byteOffset, a.body.byteLength), body_ref: a.bodyRef, expires_at: a.expiresAt,
    }).changes > 0;
  });

  return {
    async claim(r) {
      const out = claimTx.immediate(r);
      if (out.kind === 'claimed') renewal.hold(out.claim.token);
      return out;
    },
    async complete(c, a, use) {
      try {
        const kept = completeTx.immediate(c, a, use);
        renewal.drop(c.token);
        return kept;
      } catch (err) {
        if (!isStoreUnavailable(err)) renewal.drop(c.token);
        throw err;
      }
    },
    async abandon(c) {
      renewal.drop(c.token);
      q.abandon.run(c.accountId, c.key, c.token);
    },
    async sweep(now) {
      const rows = q.sweep.all(now - IDEMPOTENCY_WINDOW_MS, now);
      return { removed: rows.length, bodyRefs: rows.flatMap((r) => (r.body_ref === null ? [] : [r.body_ref])) };
    },
    close() {
      renewal.stop();
    },
  };
}
