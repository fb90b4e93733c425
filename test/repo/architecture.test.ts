// The structure drawn from the imports, held: in engine/src and adapter-http/src no import circle, and every
// import points down the layering written below (or stays inside its own folder). The engine also stays free
// of the host's environment and of child processes. Prints the counts a closing note quotes.
//
// The layering, bottom to top. A module may import from a lower layer, or from its own unit (a folder, or a
// top-level file); never from a higher layer, nor sideways from another unit of its own layer. Type-only
// imports count too: they are arrows of the structure, even when the compiler erases them.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** engine/src, bottom to top. Units are folders (`raster/`) or top-level files (`errors.ts`). */
const ENGINE_LAYERS: readonly (readonly string[])[] = [
  // the vocabulary every part speaks: errors, progress events, DTF print rules
  ['errors.ts', 'progress.ts', 'print/'],
  // pixels, colour maths, option parsing, the ONNX runtime, the thread's memory cache
  ['raster/', 'colour/', 'options/', 'onnx/', 'pdf/', 'cache/'],
  // algorithm families, each on pixels alone
  ['alpha/', 'halftone/', 'vectorize/', 'garments/', 'matte/'],
  // families built on others: the scan judges alpha; the upscaler traces with the vectorizer
  ['scan/', 'upscale/'],
  // the fix repairs what the scan finds; the mockup shows the scan's verdict on a garment
  ['fix/', 'mockup/', 'underbase/'],
  // the gang sheet's white layer is underbase's plates and separation
  ['gangsheet/'],
  // the ops: resolve + run, one per file, and their registry
  // what a host gave createEngine (paths, models), as the ops read it
  ['settings.ts'],
  ['ops/'],
  // the worker pool runs ops
  ['pool/'],
  // the facade, and the package's two faces over it: the public one and the internals subpath
  ['engine.ts'],
  ['index.ts', 'internals.ts'],
];

/** adapter-http/src, bottom to top. */
const ADAPTER_LAYERS: readonly (readonly string[])[] = [
  // the error registry (every code's status and exit) and model fetching: they speak only the engine's terms
  ['errors/', 'models/'],
  // the reply a handler gives, the client's address, blob storage, the hot-path counters
  ['http/reply.ts', 'http/client-address.ts', 'storage/', 'metrics-hot.ts'],
  // the two HTTP servers under one interface
  ['transport/'],
  // the configuration, read once
  ['config.ts'],
  ['log.ts', 'store/'],
  ['model-autofetch.ts', 'auth/', 'catalog/', 'settings.ts'],
  ['limits/', 'queue/', 'webhooks/'],
  // one exchange (request, errors, multipart, routing), the metrics, the first key
  ['http/', 'metrics.ts', 'bootstrap.ts'],
  ['services.ts'],
  ['readiness.ts'],
  // asynchronous jobs: the runner the image routes hand a request to, and the job body
  ['jobs/'],
  // the endpoints, each declared with routes/define.ts
  ['routes/'],
  // the OpenAPI document, derived from the endpoints' declarations
  ['openapi/'],
  // the endpoint that serves the document, handed the route table
  ['routes/openapi.ts'],
  // THE route table
  ['routes/index.ts'],
  // the server over the table, and the script writing the document from it
  ['server.ts', 'openapi/write.ts'],
  ['cli/'],
  // the docs' option tables, generated from the CLI commands and the route table
  ['reference/'],
  ['index.ts'],
];

interface Graph {
  /** Files relative to the source root. */
  files: string[];
  /** file -> the files it imports (relative imports only). */
  edges: Map<string, string[]>;
  lines: Map<string, number>;
}

function listTs(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listTs(p));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

function readGraph(srcDir: string): Graph {
  const abs = path.join(ROOT, srcDir);
  const files = listTs(abs).map((f) => path.relative(abs, f).split(path.sep).join('/')).sort();
  const known = new Set(files);
  const edges = new Map<string, string[]>();
  const lines = new Map<string, number>();
  for (const f of files) {
    const text = readFileSync(path.join(abs, f), 'utf8');
    lines.set(f, text.split('\n').length - (text.endsWith('\n') ? 1 : 0));
    const targets: string[] = [];
    for (const ref of ts.preProcessFile(text, true, true).importedFiles) {
      if (!ref.fileName.startsWith('.')) continue;
      const t = path.posix.normalize(path.posix.join(path.posix.dirname(f), ref.fileName)).replace(/\.js$/, '.ts');
      const target = known.has(t) ? t : known.has(`${t}/index.ts`) ? `${t}/index.ts` : null;
      if (target === null) throw new Error(`${srcDir}/${f}: cannot resolve ${ref.fileName}`);
      targets.push(target);
    }
    edges.set(f, [...new Set(targets)]);
  }
  return { files, edges, lines };
}

/** Import circles: the strongly connected components with more than one file (or a file importing itself). */
function cycles(g: Graph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of g.edges.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || g.edges.get(v)!.includes(v)) out.push(comp.sort());
    }
  };
  for (const f of g.files) if (!index.has(f)) visit(f);
  return out;
}

/** The unit of a file (the longest listed prefix) and its layer. */
function placeOf(layers: readonly (readonly string[])[], file: string): { unit: string; layer: number } | null {
  let best: { unit: string; layer: number } | null = null;
  layers.forEach((units, layer) => {
    for (const unit of units) {
      const match = unit.endsWith('/') ? file.startsWith(unit) : file === unit;
      if (match && (!best || unit.length > best.unit.length)) best = { unit, layer };
    }
  });
  return best;
}

/** Imports that point up the layering or sideways to another unit of the same layer; files with no place. */
function misplaced(g: Graph, layers: readonly (readonly string[])[]): string[] {
  const out: string[] = [];
  for (const f of g.files) {
    const from = placeOf(layers, f);
    if (!from) {
      out.push(`${f}: in no layer`);
      continue;
    }
    for (const t of g.edges.get(f)!) {
      const to = placeOf(layers, t)!;
      if (!to || to.unit === from.unit) continue;
      if (to.layer > from.layer) out.push(`${f} -> ${t} (up: layer ${from.layer} ${from.unit} -> layer ${to.layer} ${to.unit})`);
      else if (to.layer === from.layer) out.push(`${f} -> ${t} (sideways in layer ${from.layer}: ${from.unit} -> ${to.unit})`);
    }
  }
  return out;
}

const SOURCES = [
  { dir: 'engine/src', layers: ENGINE_LAYERS },
  { dir: 'adapter-http/src', layers: ADAPTER_LAYERS },
] as const;

describe.each(SOURCES)('$dir', ({ dir, layers }) => {
  const g = readGraph(dir);

  it('has no import circle', () => {
    const found = cycles(g);
    const long = g.files.filter((f) => g.lines.get(f)! > 300);
    console.log(`${dir}: ${g.files.length} files, ${long.length} over 300 lines (${long.join(', ')}), ${found.length} import circles`);
    expect(found.map((c) => c.join(' <-> '))).toEqual([]);
  });

  it('imports only down the layering', () => {
    const found = misplaced(g, layers);
    console.log(`${dir}: ${found.length} imports against the layering`);
    expect(found).toEqual([]);
  });
});

describe('engine/src stands alone', () => {
  // Paths and models come through createEngine's options; fetching models is the adapter's (adapter-http/src/models).
  it('reads no environment and starts no process', () => {
    const abs = path.join(ROOT, 'engine/src');
    const hits = listTs(abs).flatMap((f) =>
      readFileSync(f, 'utf8').split('\n').flatMap((line, i) => (/process\.env|child_process/.test(line) ? [`${path.relative(ROOT, f)}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(hits).toEqual([]);
  });
});

describe('adapter-http/src reads its configuration once', () => {
  // config.ts reads every variable into one frozen ServerConfig (and the CLI's section readers); the rest is
  // handed its part. The exceptions hand the environment on unread, to a child process.
  const CONFIG_MODULES = new Set(['adapter-http/src/config.ts']);
  const EXCEPTIONS: Readonly<Record<string, string>> = {
    // Each cluster process is an `inkprep serve` that reads its own configuration: it gets this process's
    // environment plus its slot number.
    'adapter-http/src/cli/commands/cluster.ts': 'passes the whole environment to the serve processes it forks',
  };
  it('only config.ts reads process.env', () => {
    const abs = path.join(ROOT, 'adapter-http/src');
    const hits = listTs(abs).flatMap((f) => {
      const rel = path.relative(ROOT, f);
      if (CONFIG_MODULES.has(rel)) return [];
      return readFileSync(f, 'utf8').split('\n').flatMap((line, i) => (/process\.env/.test(line) ? [`${rel}:${i + 1}: ${line.trim()}`] : []));
    });
    const unexplained = hits.filter((h) => !(h.split(':', 1)[0]! in EXCEPTIONS));
    console.log(`adapter-http/src: ${hits.length} process.env reads outside config.ts (${hits.length - unexplained.length} explained exceptions)`);
    expect(unexplained).toEqual([]);
    // An exception that no longer reads the environment is dropped from the list.
    for (const file of Object.keys(EXCEPTIONS)) expect(hits.some((h) => h.startsWith(file + ':'))).toBe(true);
  });
});
