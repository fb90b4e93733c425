// @inkprep/engine as a consumer gets it: the `npm pack` tarball, unpacked into an empty project next to its
// declared runtime dependencies (linked from this repository's node_modules instead of a network install)
// and without onnxruntime-node. The project type-checks with skipLibCheck: false (so no published
// declaration may name an optional or dev-only package) and literal option types reject bad values; the
// packed engine runs; its two entry points (`.` and `./internals`) load, and the runtime names of `.` are pinned
// (widening the public face is a decision, see PUBLIC_RUNTIME); and every dependency the engine declares is
// one its source imports.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ENGINE = path.join(REPO, 'engine');
const TSC = path.join(REPO, 'node_modules/typescript/bin/tsc');

interface PackageJson {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  optionalDependencies?: Record<string, string>;
}

let dir = '';
let packed: string[] = [];

/** Link a package of the repository's node_modules into the consumer's node_modules. */
function link(name: string): void {
  const target = path.join(dir, 'node_modules', name);
  mkdirSync(path.dirname(target), { recursive: true });
  symlinkSync(path.join(REPO, 'node_modules', name), target, 'dir');
}

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-consumer-'));
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: ENGINE, encoding: 'utf8' });
  const info = (JSON.parse(out) as Array<{ filename: string; files: Array<{ path: string }> }>)[0]!;
  packed = info.files.map((f) => f.path);
  const home = path.join(dir, 'node_modules', '@inkprep', 'engine');
  mkdirSync(home, { recursive: true });
  execFileSync('tar', ['-xzf', path.join(dir, info.filename), '-C', home, '--strip-components=1']);
  const pkg = JSON.parse(readFileSync(path.join(home, 'package.json'), 'utf8')) as PackageJson;
  for (const dep of Object.keys(pkg.dependencies ?? {})) link(dep);
  link('@types/node'); // the consumer's own dev dependency
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the packed engine in an empty project without onnxruntime-node', () => {
  it('the tarball carries the build, the ONNX weights and their licence, the licence and notices, and nothing from the repository besides', () => {
    for (const f of ['package.json', 'LICENSE', 'THIRD_PARTY_NOTICES.md', 'dist/index.js', 'dist/index.d.ts', 'dist/internals.js', 'dist/internals.d.ts', 'dist/pool/worker.js', 'dist/pool/worker-entry.cjs', 'models/esrgan-slim-x2.onnx', 'models/esrgan-slim-x4.onnx', 'models/LICENSE-esrgan-slim', 'models/esrgan-medium-x2.onnx', 'models/esrgan-medium-x4.onnx', 'models/LICENSE-esrgan-medium']) {
      expect(packed, f).toContain(f);
    }
    expect(packed.filter((f) => !/^(package\.json|LICENSE|THIRD_PARTY_NOTICES\.md|dist\/|models\/)/.test(f))).toEqual([]);
  });

  it('onnxruntime-node cannot be resolved from the project (the test would prove nothing otherwise)', () => {
    const req = createRequire(path.join(dir, 'package.json'));
    expect(() => req.resolve('onnxruntime-node')).toThrow();
    expect(() => req.resolve('@inkprep/engine')).not.toThrow();
  });

  it('a TypeScript consumer type-checks with skipLibCheck: false, and literal option types reject bad values', () => {
    writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: false, noEmit: true, types: ['node'] },
      files: ['consumer.ts'],
    }));
    writeFileSync(path.join(dir, 'consumer.ts'), CONSUMER);
    const r = spawnSync(process.execPath, [TSC, '-p', dir], { cwd: dir, encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
    // tsc checks @types/node and the engine's declarations in full (skipLibCheck: false), one process that
    // cannot be shared out: 23 s in a suite run at load 15 on 2 cores, 139 s at load 18 beside two busy loops
    // (it failed its former 120 s); so more than the suite's 180 s.
  }, 400_000);

  it('the packed engine runs: a call in a worker, and the model route reports the missing runtime', () => {
    const script = [
      "import { createEngine } from '@inkprep/engine';",
      "import { modelUnavailableReason } from '@inkprep/engine/internals';",
      'const engine = createEngine({ threads: 1 });',
      "const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAYAAAD0In+KAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAADklEQVQImWP4z8DwH4QBEfcD/RSF9bkAAAAASUVORK5CYII=', 'base64');",
      'const info = await engine.info(png);',
      'await engine.close();',
      'console.log(JSON.stringify({ width: info.width, height: info.height, model: await modelUnavailableReason() }));',
    ].join('\n');
    writeFileSync(path.join(dir, 'run.mjs'), script);
    const r = spawnSync(process.execPath, ['run.mjs'], { cwd: dir, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ width: 2, height: 1, model: 'onnxruntime-node not installed' });
  });
});

describe('the packed engine loads its worker without require(esm)', () => {
  // Piscina require()s the file it is given. Were that the ESM worker, Node (20.19+, 22.12+, 24) would load ESM
  // through require(), which once aborted a Node 22 process in V8; the entry is CommonJS and import()s the
  // worker (engine/src/pool/worker-entry.cts). --trace-require-module=all prints every require(esm), in the
  // worker threads too (they inherit the flag), so an ESM entry fails here by name.
  const traceable = process.allowedNodeEnvironmentFlags.has('--trace-require-module');
  if (!traceable) console.log(`skipped: node ${process.version} has no --trace-require-module`);
  it.skipIf(!traceable)('a pool call under --trace-require-module=all prints nothing', () => {
    const script = [
      "import { createEngine } from '@inkprep/engine';",
      'const engine = createEngine({ threads: 1 });',
      "const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAYAAAD0In+KAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAADklEQVQImWP4z8DwH4QBEfcD/RSF9bkAAAAASUVORK5CYII=', 'base64');",
      'const info = await engine.info(png);',
      'await engine.close();',
      'console.log(JSON.stringify({ width: info.width, height: info.height }));',
    ].join('\n');
    writeFileSync(path.join(dir, 'trace.mjs'), script);
    const r = spawnSync(process.execPath, ['--trace-require-module=all', 'trace.mjs'], { cwd: dir, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ width: 2, height: 1 });
  });
});

describe('the public face of the packed engine', () => {
  it('`.` exports exactly the pinned runtime names, and `./internals` loads beside it', () => {
    const script = [
      "const face = await import('@inkprep/engine');",
      "const internals = await import('@inkprep/engine/internals');",
      'console.log(JSON.stringify({ face: Object.keys(face).sort(), internals: Object.keys(internals).length }));',
    ].join('\n');
    writeFileSync(path.join(dir, 'face.mjs'), script);
    const r = spawnSync(process.execPath, ['face.mjs'], { cwd: dir, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    const got = JSON.parse(r.stdout) as { face: string[]; internals: number };
    // A new runtime export of `.` fails here until it is added to PUBLIC_RUNTIME (with TSDoc and a CHANGELOG
    // line); building blocks belong in engine/src/internals.ts instead.
    expect(got.face).toEqual([...PUBLIC_RUNTIME].sort());
    expect(got.internals).toBeGreaterThan(0);
  });
});

describe('engine dependencies', () => {
  function* sources(d: string): Generator<string> {
    for (const name of readdirSync(d)) {
      const p = path.join(d, name);
      if (statSync(p).isDirectory()) yield* sources(p);
      else if (name.endsWith('.ts')) yield p;
    }
  }

  it('every declared dependency is imported by engine/src, and every package it imports is declared', () => {
    const pkg = JSON.parse(readFileSync(path.join(ENGINE, 'package.json'), 'utf8')) as PackageJson;
    const imported = new Set<string>();
    for (const file of sources(path.join(ENGINE, 'src'))) {
      const text = readFileSync(file, 'utf8');
      // Static imports/exports, dynamic import('x'), and the variable-held specifier of the optional runtime.
      for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*|const name = )'([^'.][^']*)'/g)) {
        const spec = m[1]!;
        if (spec.startsWith('node:')) continue;
        imported.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
      }
    }
    const declared = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]);
    expect([...declared].filter((d) => !imported.has(d))).toEqual([]);
    expect([...imported].filter((d) => !declared.has(d))).toEqual([]);
    expect(pkg.optionalDependencies ?? {}).toEqual({});
    expect(pkg.peerDependenciesMeta?.['onnxruntime-node']?.optional).toBe(true);
  });
});

/** Runtime names of `@inkprep/engine` (types are not pinned: they cost nothing at run time and follow the ops). */
const PUBLIC_RUNTIME = [
  'createEngine', 'textOptions', 'resolveOptions', 'isResolved',
  'InkprepError', 'ENGINE_ERRORS', 'isErrorCode', 'invalidOption',
  'probeImage', 'sniffFormat',
  'MODEL_CATALOG', 'DEFAULT_MODEL', 'isModelName', 'REMOVE_BG_MAX_PIXELS',
  'OWN_STYLES', 'OWN_COLORS', 'PLACEMENTS', 'PLACEMENT_IDS', 'baseStyleFor', 'placementsFor', 'listTemplates',
  'packDesigns', 'GANGSHEET_ZIP_NAMES', 'MOCKUP_BATCH_LIMITS',
] as const;

/**
 * The consumer's source: typed calls that must compile, and mistakes that must not (each `@ts-expect-error`
 * fails the check when its line compiles, e.g. because an option type widened to string again).
 */
const CONSUMER = `import { readFile } from 'node:fs/promises';
import { createEngine, InkprepError, textOptions, type OpName, type OptionsOf, type VectorizeOptions } from '@inkprep/engine';

// Option fields whose type admits any string. Only catalog identifiers and paths may; the rest are literal.
// (Distributed over the option types' halves: camelCase names, and the snake_case names of the transition.)
type Widened<T> = T extends unknown ? { [P in keyof T]-?: string extends NonNullable<T[P]> ? P : never }[keyof T] : never;
type OpenText = { info: never; scan: never; fix: never; vectorize: never; upscale: never; removeBg: 'model'; mockup: 'style' | 'color' | 'size' | 'template_id' | 'templateId' | 'garment'; mockupBatch: 'style' | 'color' | 'size'; underbase: 'garment_color' | 'garmentColor' | 'style' | 'color' | 'spot_name' | 'spotName'; gangsheet: 'garment_color' | 'garmentColor' | 'style' | 'color' | 'spot_name' | 'spotName' };
type NoWidening = { [K in OpName]: Exclude<Widened<OptionsOf<K>>, OpenText[K]> }[OpName];
const noWidening: [NoWidening] extends [never] ? true : NoWidening = true;

const engine = createEngine({ threads: 1 });
const b = await readFile(process.argv[2] ?? 'art.png');
const report = await engine.scan(b, { print_width_inches: 12 });
const svg = await engine.vectorize(b, { colors: 8, detail: 'precise', shape_style: 'cutout', gradients: true });
const auto: VectorizeOptions = { colors: 'auto' };
const up: OptionsOf<'upscale'> = { scale: 4, route: 'model' };
const png = await engine.upscale(b, up, { transfer: true });
console.log(report.issues.length, svg.paths, auto, png.width);
try {
  await engine.fix(b, { fix_halftone: true, halftone_lpi: 45 });
} catch (err) {
  if (err instanceof InkprepError) console.log(err.code, err.details.field);
}
// The library's names are camelCase (the snake_case above is accepted during the transition).
await engine.scan(b, { printWidthInches: 12 });
await engine.fix(b, { fixHalftone: true, halftoneLpi: 45, resizeWidthPx: 800 });
const ub = await engine.underbase(b, { garmentColor: '#1b1b1d', printWidthInches: 10, knockout: 'garment', format: 'json' });
console.log(ub.stats.whiteCoveragePercent, ub.warnings.map((w) => w.code), ub.colourPlate?.length);
// @ts-expect-error knockout is none | black | garment
await engine.underbase(b, { knockout: 'white' });
// @ts-expect-error shapeStyle is stacked | cutout
await engine.vectorize(b, { shapeStyle: 'round' });
// @ts-expect-error colors is 'auto' | 'unlimited' | number
await engine.vectorize(b, { colors: 'lots' });
// @ts-expect-error a number is a number, not its text
await engine.vectorize(b, { colors: '8' });
// @ts-expect-error detail is smoother | balanced | precise
await engine.run('vectorize', b, { detail: 'fine' });
// @ts-expect-error output_format is svg | pdf | eps | dxf
await engine.vectorize(b, { output_format: 'tiff' });
// @ts-expect-error booleans are booleans
await engine.fix(b, { fix_halftone: 'true' });
// @ts-expect-error scale is 2 | 4
await engine.upscale(b, { scale: 3 });
// @ts-expect-error print_width_inches is a number
await engine.scan(b, { print_width_inches: '12' });
// @ts-expect-error fabric is a number or false
await engine.mockup(b, { fabric: 'false' });
// @ts-expect-error placement is a placement id
await engine.mockup(b, { placement: 'chest' });
// @ts-expect-error backend is auto | matte | model
await engine.removeBg(b, { backend: 'magic' });
// Text forms (form fields, flags) only through the adapters' wrapper.
await engine.vectorize(b, textOptions({ colors: '8', gradients: 'true' }));
console.log(noWidening);
await engine.close();
`;
