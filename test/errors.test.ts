// Keeps the README's error-code table and the registry in step.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '@inkprep/engine';

describe('error registry', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const block = readme.split('<!-- error-codes:start -->')[1]?.split('<!-- error-codes:end -->')[0] ?? '';
  const rows = [...block.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1], Number(m[2])] as const);

  it('README lists every code with its status', () => {
    for (const [code, def] of Object.entries(ERROR_CODES)) {
      expect(rows.find((r) => r[0] === code), `README row for ${code}`).toEqual([code, def.status]);
    }
  });
  it('README lists no code the registry lacks', () => {
    for (const [code] of rows) expect(Object.keys(ERROR_CODES)).toContain(code);
  });
});
