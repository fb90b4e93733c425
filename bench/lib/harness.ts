// Shared benchmark harness: the BenchContext handed to every suite in bench/suites/<name>.ts, tinybench
// sizing for full vs CI short mode (BENCH_SHORT=1), ratio-to-baseline rows, and the reporter that prints
// aligned text tables and writes bench/results/<suite>.json.
//
// A suite:
//   import type { BenchContext } from '../lib/harness.js';
//   export default async function (ctx: BenchContext) {
//     const b = ctx.bench('decode 12 MP PNG');
//     b.add('baseline: sharp raw', async () => { ... });
//     b.add('inkprep decodeImage', async () => { ... });
//     await ctx.runBench(b, { baseline: 'baseline: sharp raw' });   // prints + records, adds "x baseline"
//     ctx.table('fidelity', [{ case: 'owl', meanDeltaE: 0.4 }]);     // any other results table
//   }
import { Bench, type Task } from 'tinybench';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

/** Repository root (absolute). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Where suites write their JSON results (gitignored). */
export const RESULTS_DIR = path.join(REPO_ROOT, 'bench/results');

/** One results-table cell. */
export type Cell = string | number | boolean | null;
/** One results-table row: column name -> value. Numbers are stored raw in JSON and rounded for display. */
export type Row = Record<string, Cell>;

/** A timing row produced by `runBench`. Times in milliseconds. */
export interface BenchRow extends Row {
  name: string;
  'ops/s': number;
  'mean ms': number;
  'p50 ms': number;
  'p99 ms': number;
  samples: number;
}

/** Sizing of one tinybench `Bench`. In short mode each value is capped at the short-mode default. */
export interface BenchSizing {
  /** Time budget per task in ms (full default 1000, short 100). A task runs until both budget and iterations are met. */
  time?: number;
  /** Minimum iterations per task (full default 10, short 3). */
  iterations?: number;
  /** Warmup iterations per task (full default 2, short 1). */
  warmupIterations?: number;
}

/** A recorded table. */
export interface ResultTable {
  title: string;
  rows: Row[];
}

/** What a suite receives. */
export interface BenchContext {
  /** Suite name (file name without .ts). */
  readonly suite: string;
  /** CI short mode (env BENCH_SHORT=1): keep the whole suite under ~30 s (small inputs, few iterations). */
  readonly short: boolean;
  /** A tinybench `Bench` sized for the mode; add tasks, then `await ctx.runBench(b, { baseline })`. */
  bench(name: string, sizing?: BenchSizing): Bench;
  /**
   * Run a bench, print its table, record it in the JSON, and return one row per task
   * (name, ops/s, mean/p50/p99 ms, samples). With `baseline` (a task name in the same bench) every row
   * also gets `x baseline` = its mean time / the baseline's mean time (1.00 = as fast, 2.00 = twice as slow).
   * A task that throws makes runBench throw (the suite then fails: a crash, never a number).
   */
  runBench(bench: Bench, opts?: { baseline?: string; title?: string }): Promise<BenchRow[]>;
  /** Record and print any results table (e.g. fidelity metrics). Rows may have different columns. */
  table(title: string, rows: Row[]): void;
  /**
   * Add a ratio column to rows measured in the same run: `x <baselineName>` = row[key] / baseline row[key]
   * (default key `mean ms`). Returns new rows; does not record them (pass them to `table`).
   */
  ratio<R extends Row>(rows: R[], baselineName: string, key?: string, nameKey?: string): R[];
  /** Print a line (also kept in the JSON `log`). */
  log(msg: string): void;
}

const SHORT_SIZING: Required<BenchSizing> = { time: 100, iterations: 3, warmupIterations: 1 };
const FULL_SIZING: Required<BenchSizing> = { time: 1000, iterations: 10, warmupIterations: 2 };

/** Mean time / baseline mean time as a ratio column. */
export function withRatio<R extends Row>(rows: R[], baselineName: string, key = 'mean ms', nameKey = 'name'): R[] {
  const base = rows.find((r) => r[nameKey] === baselineName);
  if (!base) throw new Error(`ratio: no row named ${JSON.stringify(baselineName)} (rows: ${rows.map((r) => String(r[nameKey])).join(', ')})`);
  const b = Number(base[key]);
  const col = key === 'mean ms' ? 'x baseline' : `x ${baselineName}`;
  return rows.map((r) => ({ ...r, [col]: b > 0 ? Number(r[key]) / b : null }) as R);
}

function fmtNumber(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (Number.isInteger(v) && Math.abs(v) < 1e9) return String(v);
  const a = Math.abs(v);
  if (a >= 1000) return v.toFixed(0);
  if (a >= 100) return v.toFixed(1);
  if (a >= 1) return v.toFixed(2);
  if (a === 0) return '0';
  return v.toPrecision(3);
}

/** Render rows as an aligned text table (numbers right-aligned). */
export function formatTable(title: string, rows: Row[]): string {
  const cols: string[] = [];
  for (const r of rows) for (const k of Object.keys(r)) if (!cols.includes(k)) cols.push(k);
  const cells = rows.map((r) => cols.map((c) => {
    const v = r[c];
    if (v === undefined || v === null) return '';
    if (typeof v === 'number') return c.startsWith('x ') && Number.isFinite(v) ? v.toFixed(2) : fmtNumber(v);
    return String(v);
  }));
  const numeric = cols.map((c) => rows.every((r) => r[c] === undefined || r[c] === null || typeof r[c] === 'number'));
  const widths = cols.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)));
  const line = (vals: string[]) => vals.map((v, i) => (numeric[i] ? v.padStart(widths[i]!) : v.padEnd(widths[i]!))).join('  ').trimEnd();
  return [`== ${title}`, line(cols), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n');
}

/** The JSON written to bench/results/<suite>.json. */
export interface SuiteResult {
  suite: string;
  short: boolean;
  ok: boolean;
  error?: string;
  startedAt: string;
  durationMs: number;
  machine: { node: string; platform: string; cpus: number; cpuModel: string };
  tables: ResultTable[];
  log: string[];
}

/** Build a context for one suite; `finish` writes the JSON. */
export function createContext(suite: string, short: boolean, out: (s: string) => void = (s) => process.stdout.write(s + '\n')) {
  const tables: ResultTable[] = [];
  const log: string[] = [];
  const startedAt = new Date();
  const t0 = performance.now();

  const ctx: BenchContext = {
    suite,
    short,
    bench(name, sizing = {}) {
      const pick = (k: keyof BenchSizing) => (short ? Math.min(sizing[k] ?? SHORT_SIZING[k], SHORT_SIZING[k]) : sizing[k] ?? FULL_SIZING[k]);
      return new Bench({ name, time: pick('time'), iterations: pick('iterations'), warmupIterations: pick('warmupIterations'), warmupTime: 0, throws: true });
    },
    async runBench(bench, opts = {}) {
      await bench.run();
      const rows: BenchRow[] = bench.tasks.map((t: Task) => {
        const r = t.result;
        if (r.state === 'errored') throw r.error;
        if (r.state !== 'completed' && r.state !== 'aborted-with-statistics') throw new Error(`bench task ${t.name} did not complete (${r.state})`);
        return {
          name: t.name,
          'ops/s': r.throughput.mean,
          'mean ms': r.latency.mean,
          'p50 ms': r.latency.p50,
          'p99 ms': r.latency.p99,
          samples: r.latency.samplesCount,
        };
      });
      const shown = opts.baseline ? withRatio(rows, opts.baseline) : rows;
      ctx.table(opts.title ?? bench.name ?? 'bench', shown);
      return shown as BenchRow[];
    },
    table(title, rows) {
      tables.push({ title, rows });
      out(formatTable(title, rows) + '\n');
    },
    ratio: withRatio,
    log(msg) {
      log.push(msg);
      out(msg);
    },
  };

  function finish(error?: unknown): SuiteResult {
    const result: SuiteResult = {
      suite,
      short,
      ok: error === undefined,
      ...(error === undefined ? {} : { error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
      startedAt: startedAt.toISOString(),
      durationMs: Math.round(performance.now() - t0),
      machine: { node: process.version, platform: `${process.platform}-${process.arch}`, cpus: os.availableParallelism(), cpuModel: os.cpus()[0]?.model ?? 'unknown' },
      tables,
      log,
    };
    mkdirSync(RESULTS_DIR, { recursive: true });
    writeFileSync(path.join(RESULTS_DIR, `${suite}.json`), JSON.stringify(result, null, 2) + '\n');
    return result;
  }

  return { ctx, finish };
}

/** Default export shape of a suite module. */
export type Suite = (ctx: BenchContext) => Promise<void>;
