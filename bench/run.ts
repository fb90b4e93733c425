// Benchmark runner: `npm run bench [suite ...|all]`. Suites are the files bench/suites/<name>.ts (default
// export `async (ctx: BenchContext) => void`). Each suite runs in its own child process (so a leaked handle
// or a native crash cannot hang or take down the others); the child prints its tables and writes
// bench/results/<suite>.json. Exit code is non-zero only when a suite throws, crashes or hangs past the
// timeout, never because of a number. BENCH_SHORT=1 selects the CI short mode.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { REPO_ROOT, createContext, formatTable, type Suite } from './lib/harness.js';

const SUITES_DIR = path.join(REPO_ROOT, 'bench/suites');
const SHORT = process.env.BENCH_SHORT === '1' || process.env.BENCH_SHORT === 'true';
/** A suite still running after this many seconds counts as hung (short mode 300 s, full 3600 s; env BENCH_TIMEOUT_S). */
const TIMEOUT_S = Number(process.env.BENCH_TIMEOUT_S) || (SHORT ? 300 : 3600);

function listSuites(): string[] {
  return readdirSync(SUITES_DIR)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => f.slice(0, -3))
    .sort();
}

async function runChild(name: string): Promise<number> {
  const mod = (await import(pathToFileURL(path.join(SUITES_DIR, `${name}.ts`)).href)) as { default?: Suite };
  const { ctx, finish } = createContext(name, SHORT);
  if (typeof mod.default !== 'function') {
    finish(new Error(`bench/suites/${name}.ts has no default export function`));
    process.stderr.write(`bench: bench/suites/${name}.ts has no default export function\n`);
    return 1;
  }
  try {
    await mod.default(ctx);
    const r = finish();
    process.stdout.write(`bench: ${name} done in ${(r.durationMs / 1000).toFixed(1)} s -> bench/results/${name}.json\n`);
    return 0;
  } catch (err) {
    finish(err);
    process.stderr.write(`bench: suite ${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 1;
  }
}

function spawnSuite(name: string): Promise<{ code: number; ms: number; why: string }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', name], { stdio: 'inherit', cwd: REPO_ROOT, env: process.env });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, TIMEOUT_S * 1000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const ms = performance.now() - t0;
      if (timedOut) resolve({ code: 1, ms, why: `hung (killed after ${TIMEOUT_S} s)` });
      else if (signal) resolve({ code: 1, ms, why: `crashed (${signal})` });
      else resolve({ code: code ?? 1, ms, why: code === 0 ? 'ok' : `failed (exit ${code})` });
    });
  });
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === '--child') {
    const code = await runChild(argv[1]!);
    // Exit explicitly: a suite that leaves a pool or timer open must not keep the run alive.
    process.exit(code);
  }
  const suites = listSuites();
  const wanted = argv.filter((a) => a !== '--');
  if (wanted.length === 0) {
    process.stdout.write(['usage: npm run bench -- <suite ...|all>   (BENCH_SHORT=1 for the CI short mode)', '', 'suites:', ...suites.map((s) => `  ${s}`), ''].join('\n'));
    return 0;
  }
  const names = wanted.includes('all') ? suites : wanted;
  const unknown = names.filter((n) => !suites.includes(n));
  if (unknown.length) {
    process.stderr.write(`bench: unknown suite(s) ${unknown.join(', ')}; known: ${suites.join(', ')}\n`);
    return 2;
  }
  process.stdout.write(`bench: ${names.length} suite(s), ${SHORT ? 'short (CI) mode' : 'full mode'}\n\n`);
  const summary: { suite: string; status: string; seconds: number }[] = [];
  let failed = 0;
  for (const name of names) {
    process.stdout.write(`### suite ${name}\n`);
    const r = await spawnSuite(name);
    if (r.code !== 0) failed++;
    summary.push({ suite: name, status: r.why, seconds: Math.round(r.ms / 100) / 10 });
  }
  process.stdout.write('\n' + formatTable('bench summary', summary) + '\n');
  return failed ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
