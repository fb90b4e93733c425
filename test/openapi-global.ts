// Global setup/teardown of the OpenAPI response check (test/openapi-setup.ts): clears the records, and at
// the end prints how many responses were checked, which (operation, status) pairs the suite saw against
// those the document declares, and fails the run on any mismatch.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { SEEN_DIR as DIR, type SeenEntry } from './openapi-record.js';

// Both vitest projects run this global setup in the one main process: clear and report once.
const g = globalThis as typeof globalThis & { inkprepOpenApiSetup?: boolean; inkprepOpenApiReported?: boolean };

export function setup(): void {
  if (g.inkprepOpenApiSetup) return;
  g.inkprepOpenApiSetup = true;
  rmSync(DIR, { recursive: true, force: true });
}

export async function teardown(): Promise<void> {
  if (g.inkprepOpenApiReported || !existsSync(DIR)) return;
  g.inkprepOpenApiReported = true;
  const entries: SeenEntry[] = [];
  for (const f of readdirSync(DIR)) {
    for (const line of readFileSync(DIR + f, 'utf8').split('\n')) if (line) entries.push(JSON.parse(line) as SeenEntry);
  }
  const checked = entries.filter((e) => e.op && !e.expected);
  if (checked.length === 0) return;
  const failed = checked.filter((e) => e.errors?.length);
  const skipped = entries.filter((e) => e.skipped);
  const { declaredPairs } = await import('./http/openapi-check.js');
  const declared = declaredPairs();
  const seen = new Set(checked.filter((e) => !e.op!.includes('(')).map((e) => `${e.op} ${e.status}`));
  const server = checked.filter((e) => e.via === 'server');
  const serverIds = new Set(server.map((e) => e.id));
  const clientOnly = checked.filter((e) => e.via !== 'server' && !serverIds.has(e.id));
  const byVia = (v: string) => clientOnly.filter((e) => e.via === v).length;
  const lines = [
    `OpenAPI response check: ${server.length + clientOnly.length} responses of the API checked against the document, ${failed.length} mismatches:`,
    `  ${server.length} replies of in-process test servers, checked as sent (any client: fetch, node:http, raw sockets, browser), ${checked.length - server.length - clientOnly.length} of them also by the client that received them;`,
    `  ${clientOnly.length} responses of servers in child processes, checked by the client (fetch: ${byVia('fetch')}, node:http: ${byVia('node:http')}, of which ${clientOnly.filter((e) => e.via === 'node:http' && !e.body).length} on status and headers only, the test not reading a JSON body);`,
    `  ${skipped.length} replies of test-only routes (/test/...) not checked.`,
    `  (operation, status) pairs seen: ${seen.size} of ${declared.length} declared; 404/405 outside the operations: ${checked.filter((e) => e.op!.includes('(')).length}`,
    `  declared, not seen: ${unseen(declared.filter((p) => !seen.has(p)))}`,
  ];
  console.log(lines.join('\n'));
  if (failed.length) {
    throw new Error(`OpenAPI: ${failed.length} responses do not match the document:\n${failed.slice(0, 20).map((e) => `  ${e.via} ${e.op} ${e.status} ${e.path}: ${e.errors!.join('; ')}`).join('\n')}`);
  }
}

/** `GET /a 401, GET /a 500` -> `GET /a: 401 500` (one group per operation). */
function unseen(pairs: string[]): string {
  const by = new Map<string, string[]>();
  for (const p of pairs) {
    const i = p.lastIndexOf(' ');
    by.set(p.slice(0, i), [...(by.get(p.slice(0, i)) ?? []), p.slice(i + 1)]);
  }
  return [...by].map(([op, st]) => `${op}: ${st.join(' ')}`).join('; ') || 'none';
}
