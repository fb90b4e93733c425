// PostgreSQL for tests: a throwaway database per test file on the server named by
// INKPREP_TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres). When no server answers,
// `pgAvailable()` resolves to a reason string and the suites skip, printing it.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const ADMIN_URL = process.env.INKPREP_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** null when a server answers, else why not. */
export async function pgUnavailableReason(): Promise<string | null> {
  const c = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.query('SELECT 1');
    return null;
  } catch (err) {
    return `PostgreSQL not reachable at ${ADMIN_URL.replace(/:[^:@/]*@/, ':***@')}: ${(err as Error).message}`;
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** Create an empty database; returns its URL and a function that drops it. */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `inkprep_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(ADMIN_URL);
  u.pathname = '/' + name;
  return {
    url: u.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: ADMIN_URL });
      await c.connect();
      // pg's Pool.end() resolves once it has asked its clients to end, not once they have: a FORCE drop at that
      // moment terminates sessions whose clients then emit an unhandled 'error' ("terminating connection due to
      // administrator command", seen in CI). Wait (bounded) for the test's own sessions to be gone first; FORCE
      // is only for what a failed test left behind.
      for (let i = 0; i < 100; i++) {
        const { rows } = await c.query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1', [name]);
        if (Number(rows[0]!.n) === 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
