// Configuration variables documented once (issue 29): config.ts declares every environment variable it reads in
// CONFIG_VARIABLES; docs/reference/configuration.md is exactly what that table generates (npm run docs:options);
// config.ts reads no variable the table lacks and the table has none config.ts does not read; and every INKPREP_
// name in adapter-http/src, docs/ and README.md is in the table (or a tools' variable), so no page names an
// undocumented or a stale variable.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, configFromEnv, debugFromEnv } from '../../adapter-http/src/config.js';
import { configurationReference, TOOL_VARIABLES } from '../../adapter-http/src/reference/configuration-doc.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CONFIG_TS = path.join(ROOT, 'adapter-http/src/config.ts');
const PAGE = path.join(ROOT, 'docs/reference/configuration.md');

/** Variables config.ts reads that belong to the host, not to inkprep (they switch the blank warm-up off under tests). */
const HOST_VARIABLES = new Set(['NODE_ENV', 'VITEST']);

const documented = new Set(CONFIG_VARIABLES.map((v) => v.name));
const known = new Set([...documented, ...TOOL_VARIABLES.map((t) => t.name)]);

function filesUnder(dir: string, ext: RegExp): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(p, ext) : ext.test(e.name) ? [p] : [];
  });
}

/** The variables config.ts reads: `env.NAME`, `env['NAME']` and the names handed to its readers (`int(env, 'NAME', ...)`). */
function readsOf(source: string): Set<string> {
  // The table itself names every variable; only the code below it counts as reading.
  const code = source.replace(/export const CONFIG_VARIABLES[\s\S]*?\n\]\);\n/, '');
  const names = new Set<string>();
  for (const m of code.matchAll(/\benv\.([A-Z][A-Z0-9_]*)\b/g)) names.add(m[1]!);
  for (const m of code.matchAll(/\benv\[\s*'([A-Z][A-Z0-9_]*)'\s*\]/g)) names.add(m[1]!);
  for (const m of code.matchAll(/\(\s*env\s*,\s*'([A-Z][A-Z0-9_]*)'/g)) names.add(m[1]!);
  return names;
}

describe('configuration variables', () => {
  it('docs/reference/configuration.md is what CONFIG_VARIABLES generates (npm run docs:options)', () => {
    expect(readFileSync(PAGE, 'utf8')).toBe(configurationReference(CONFIG_VARIABLES));
  });

  it('config.ts reads exactly the variables of its table', () => {
    const reads = readsOf(readFileSync(CONFIG_TS, 'utf8'));
    const ours = [...reads].filter((n) => !HOST_VARIABLES.has(n)).sort();
    console.log(`config.ts: ${ours.length} variables read, ${documented.size} in CONFIG_VARIABLES`);
    expect(ours.filter((n) => !documented.has(n)), 'read but not in CONFIG_VARIABLES').toEqual([]);
    expect([...documented].filter((n) => !reads.has(n)), 'in CONFIG_VARIABLES but never read').toEqual([]);
    expect(new Set(CONFIG_VARIABLES.map((v) => v.name)).size).toBe(CONFIG_VARIABLES.length);
  });

  it('the reader of the table finds the reads it is meant to (the check above can fail)', () => {
    const sample = "const a = env.INKPREP_A; int(env, 'INKPREP_B', 1, 0, 2); env['INKPREP_C'];";
    expect([...readsOf(sample)].sort()).toEqual(['INKPREP_A', 'INKPREP_B', 'INKPREP_C']);
  });

  it('every INKPREP_ name in adapter-http/src, docs/ and README.md is documented', () => {
    const files = [
      ...filesUnder(path.join(ROOT, 'adapter-http/src'), /\.ts$/),
      ...filesUnder(path.join(ROOT, 'docs'), /\.(md|json)$/),
      path.join(ROOT, 'README.md'),
    ];
    const unknown: string[] = [];
    let mentions = 0;
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      for (const m of text.matchAll(/\bINKPREP_[A-Z0-9_]*/g)) {
        mentions++;
        const name = m[0];
        // `INKPREP_SEGMENTATION_` (as in `INKPREP_SEGMENTATION_*` or a template string) names a family.
        const ok = name.endsWith('_') ? [...known].some((k) => k.startsWith(name)) : known.has(name);
        if (!ok) unknown.push(`${path.relative(ROOT, f)}: ${name}`);
      }
    }
    console.log(`${mentions} INKPREP_ mentions in ${files.length} files`);
    expect(mentions).toBeGreaterThan(100);
    expect([...new Set(unknown)], 'not in CONFIG_VARIABLES (adapter-http/src/config.ts; then npm run docs:options) nor a tools\' variable').toEqual([]);
  });

  it('every example value is accepted', () => {
    for (const v of CONFIG_VARIABLES) {
      expect(() => configFromEnv({ [v.name]: v.example }), `${v.name}=${v.example}`).not.toThrow();
    }
    expect(debugFromEnv({ INKPREP_DEBUG: '1' })).toBe(true);
  });

  it('the documented defaults are what an empty environment gives', () => {
    const c = configFromEnv({});
    const dflt = (name: string) => CONFIG_VARIABLES.find((v) => v.name === name)!.default;
    expect(String(c.port)).toBe(dflt('PORT'));
    expect(c.host).toBe(dflt('HOST'));
    expect(String(c.engineMaxQueue)).toBe(dflt('INKPREP_ENGINE_MAX_QUEUE'));
    expect(String(c.vectorizeSlots)).toBe(dflt('INKPREP_VECTORIZE_SLOTS'));
    expect(String(c.vectorizeMaxWaiting)).toBe(dflt('INKPREP_VECTORIZE_MAX_WAITING'));
    expect(String(c.vectorizeLeaseMs)).toBe(dflt('INKPREP_VECTORIZE_LEASE_MS'));
    expect(String(c.maxUploadBytes / 2 ** 20)).toBe(dflt('INKPREP_MAX_UPLOAD_MB'));
    expect(String(c.vectorizeMaxBytes / 2 ** 20)).toBe(dflt('INKPREP_VECTORIZE_MAX_MB'));
    expect(String(c.maxPixels)).toBe(dflt('INKPREP_MAX_PIXELS'));
    expect(String(c.shutdownGraceMs)).toBe(dflt('INKPREP_SHUTDOWN_GRACE_MS'));
    expect(c.logLevel).toBe(dflt('INKPREP_LOG_LEVEL'));
    expect(c.http).toBe(dflt('INKPREP_HTTP'));
    expect(String(c.store.reservationLeaseMs)).toBe(dflt('INKPREP_RESERVATION_LEASE_MS'));
    expect(String(c.catalog.supplierTimeoutMs)).toBe(dflt('INKPREP_SUPPLIER_TIMEOUT_MS'));
    expect(path.relative(process.cwd(), c.dataDir)).toBe(path.normalize(dflt('INKPREP_DATA_DIR')));
  });
});
