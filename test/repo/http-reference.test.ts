// docs/reference/http-api.md (issue 29) is generated from the public OpenAPI document: the committed page is
// exactly what `npm run openapi` writes, every operation of the document has its section with each parameter,
// form field and answer status, and the page is reachable from README.md and the guides.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROUTES, buildOpenApi, httpReference } from '@inkprep/http';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ROOT = path.resolve(import.meta.dirname, '../..');
const PAGE = path.join(ROOT, 'docs/reference/http-api.md');
const page = readFileSync(PAGE, 'utf8');
const doc = buildOpenApi(ROUTES) as Json;

/** The section of one operation (from its heading to the next). */
function section(method: string, p: string): string {
  const start = page.indexOf(`\n### ${method} ${p}\n`);
  if (start < 0) return '';
  const next = page.indexOf('\n### ', start + 1);
  return page.slice(start, next < 0 ? undefined : next);
}

describe('docs/reference/http-api.md', () => {
  it('is what the OpenAPI document generates (npm run openapi)', () => {
    expect(page === httpReference(doc), 'docs/reference/http-api.md is stale: run `npm run openapi` and commit it').toBe(true);
  });

  it('has a section per operation with its parameters, form fields and answer statuses', () => {
    let n = 0;
    for (const [p, item] of Object.entries(doc.paths as Json)) {
      for (const [m, op] of Object.entries(item as Json)) {
        const s = section(m.toUpperCase(), p);
        expect(s, `${m.toUpperCase()} ${p} has a section`).not.toBe('');
        expect(s).toContain(`**${op.summary}**`);
        for (const param of (op.parameters ?? []) as Json[]) expect(s, `${m} ${p} parameter ${param.name}`).toContain(`| \`${param.name}\` | ${param.in} |`);
        const form = op.requestBody?.content['multipart/form-data']?.schema?.properties as Json | undefined;
        for (const field of Object.keys(form ?? {})) expect(s, `${m} ${p} field ${field}`).toContain(`| \`${field}\` |`);
        for (const status of Object.keys(op.responses as Json)) expect(s, `${m} ${p} answer ${status}`).toMatch(new RegExp(`^\\| ${status} \\|`, 'm'));
        n++;
      }
    }
    expect(n).toBe(Object.values(doc.paths as Json).reduce((k: number, item) => k + Object.keys(item as Json).length, 0));
    // the page's files and /metrics are not API operations
    expect(page).not.toMatch(/^### GET \/(web\/|metrics|$)/m);
  });

  it('is linked from README.md and the getting-started guide', () => {
    expect(readFileSync(path.join(ROOT, 'README.md'), 'utf8')).toContain('](docs/reference/http-api.md)');
    expect(readFileSync(path.join(ROOT, 'docs/guides/getting-started.md'), 'utf8')).toContain('](../reference/http-api.md)');
  });
});
