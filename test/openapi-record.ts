// Where the OpenAPI response checks write what they saw (one JSON line per response, one file per test
// process); test/openapi-global.ts reads them at the end of the run.
import { appendFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const SEEN_DIR = fileURLToPath(new URL('./.openapi-seen/', import.meta.url));

/** Set while a test provokes mismatches on purpose (test/http/openapi-responses.test.ts): recorded as expected. */
export const EXPECT_MISMATCH = Symbol.for('inkprep.openapi.expectMismatch');

export function expectingMismatch(): boolean {
  return !!(globalThis as { [EXPECT_MISMATCH]?: boolean })[EXPECT_MISMATCH];
}

export interface SeenEntry {
  /** fetch | node:http (client side) | server (every reply of an in-process test server, any client). */
  via?: 'fetch' | 'node:http' | 'server';
  op?: string;
  status: number;
  errors?: string[];
  skipped?: string;
  path: string;
  /** X-Request-Id of the response: the same response seen by both sides counts once. */
  id?: string;
  expected?: boolean;
  project?: string;
  /** node:http: the JSON body was read whole and checked too. */
  body?: boolean;
}

export function recordSeen(entry: SeenEntry): void {
  mkdirSync(SEEN_DIR, { recursive: true });
  appendFileSync(`${SEEN_DIR}${process.pid}.jsonl`, JSON.stringify({ project: process.env.INKPREP_HTTP ?? '', ...(expectingMismatch() ? { expected: true } : {}), ...entry }) + '\n');
}
