// A separate process holding usage reservations, for the crash-safety tests of store-contract.test.ts:
// argv: <sqlite data dir | postgres:// url> <accountId> <keyId> <pending> <confirmed> <leaseMs>.
// Reserves `pending + confirmed` remove-bg uses at the fixed T0 (see below), confirms `confirmed` of them,
// prints `ready` and then obeys stdin lines: `confirm` (confirm the pending ones, print `confirmed`).
// The test kills it (SIGKILL) or freezes it (SIGSTOP) while the rest are pending.
import readline from 'node:readline';
import { openPostgresStore, openSqliteStore } from '@inkprep/http';

const [where, accountId, keyId, pendingN, confirmedN, leaseMs] = process.argv.slice(2);
const T0 = Date.UTC(2026, 4, 1, 10);
const store = where.startsWith('postgres')
  ? await openPostgresStore({ connectionString: where, leaseMs: Number(leaseMs) })
  : openSqliteStore(where, { leaseMs: Number(leaseMs) });
const req = { accountId, keyId, endpoint: 'remove-bg', fairUse: 'remove_bg', now: T0, dailyLimit: 1000, fairUseCap: 1000, monthly: null };
const uses = [];
for (let i = 0; i < Number(pendingN) + Number(confirmedN); i++) {
  const r = await store.reserve(req);
  if (!r.ok) throw new Error('reservation refused');
  uses.push({ eventId: r.eventId, accountId, keyId, endpoint: 'remove-bg', fairUse: 'remove_bg', at: T0 });
}
for (const u of uses.splice(0, Number(confirmedN))) await store.confirm(u);
process.stdout.write('ready\n');
for await (const line of readline.createInterface({ input: process.stdin })) {
  if (line === 'confirm') {
    for (const u of uses) await store.confirm(u);
    process.stdout.write('confirmed\n');
  }
}
await store.close();
