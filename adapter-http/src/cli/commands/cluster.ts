// `inkprep cluster`: N `inkprep serve` processes on one host sharing one port. They listen with
// SO_REUSEPORT on Linux (uWebSockets.js always; node:http from Node 22.12), so the kernel spreads new
// connections across the processes; no proxy needed.
// With DATABASE_URL the processes share PostgreSQL (accounts, keys, exact limits, hosted results), which
// is also what several hosts behind a load balancer use. The parent bootstraps an empty store once
// (so N processes do not each create a first account), restarts a process that dies, and on
// SIGTERM/SIGINT forwards the signal and waits for every process to drain.
import { fork, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { bootstrapStore } from '../../bootstrap.js';
import { openConfiguredStore } from '../../store/open.js';
import { announceFirstKey, configOrReport } from './serve.js';
import { EXIT, UsageError, parseOrHelp, printError, reportError, synopsis, type Command } from '../command.js';
import { rejectUnknownFlags } from '../known-flags.js';
import { isStoreUnavailable } from '../../store/unavailable.js';

const USAGE = [
  'usage: inkprep cluster [--processes N]',
  '',
  'Starts N `inkprep serve` processes (default: INKPREP_PROCESSES or the number of cores) on PORT,',
  'sharing the port through SO_REUSEPORT. Set DATABASE_URL (postgres://...) so every process shares',
  'accounts, limits and hosted results; without it they share the SQLite store in INKPREP_DATA_DIR',
  '(one host only). All `inkprep serve` environment variables apply to every process.',
].join('\n');

export const clusterCommand: Command = {
  name: 'cluster',
  summary: 'run N server processes on one port (SO_REUSEPORT), sharing the store (DATABASE_URL for PostgreSQL)',
  usage: USAGE,
  async run(argv) {
    const parsed = parseOrHelp(argv, USAGE);
    if (!parsed) return EXIT.ok;
    const { positionals, flags } = parsed;
    try {
      rejectUnknownFlags(flags, ['help', 'processes'], 'cluster', synopsis(USAGE));
      if (positionals.length > 0) throw new UsageError(`cluster takes no arguments besides --processes N, got ${positionals.join(' ')}`, synopsis(USAGE));
    } catch (err) {
      return reportError(err);
    }
    const config = configOrReport();
    if (!config) return EXIT.usage;
    const n = Number(flags.processes ?? config.processes ?? os.availableParallelism());
    if (!Number.isInteger(n) || n < 1 || n > 64) {
      return printError('invalid_option', `Expected an integer from 1 to 64 for --processes but received ${JSON.stringify(flags.processes)}`, { field: 'processes' });
    }
    if (config.port === 0) {
      return printError('invalid_option', 'cluster needs a fixed PORT (0 would give every process its own port)', { field: 'PORT' });
    }
    try {
      const { store } = await openConfiguredStore({ dataDir: config.dataDir, config: config.store });
      const boot = await bootstrapStore(store, config.bootstrapKey, Date.now());
      await store.close();
      if (boot.created && !boot.fromEnv) announceFirstKey(boot.accountId, boot.secret);
    } catch (err) {
      return printError(isStoreUnavailable(err) ? 'store_unavailable' : 'internal_error', `cannot open the store: ${(err as Error).message}`);
    }

    const mainJs = fileURLToPath(new URL('../main.js', import.meta.url));
    const children = new Set<ChildProcess>();
    let stopping = false;
    const start = (slot: number): void => {
      const child = fork(mainJs, ['serve'], { env: { ...process.env, INKPREP_CLUSTER_SLOT: String(slot) }, stdio: 'inherit' });
      children.add(child);
      child.on('exit', (code, signal) => {
        children.delete(child);
        if (stopping) return;
        process.stderr.write(`inkprep cluster: process ${slot} exited (${signal ?? code}); restarting in 1 s\n`);
        setTimeout(() => {
          if (!stopping) start(slot);
        }, 1000).unref();
      });
    };
    for (let i = 0; i < n; i++) start(i);
    process.stderr.write(`inkprep cluster: ${n} processes on port ${config.port}\n`);
    return new Promise<number>((resolve) => {
      const stop = (signal: NodeJS.Signals): void => {
        if (stopping) return;
        stopping = true;
        for (const c of children) c.kill(signal);
        const done = (): void => {
          if (children.size === 0) resolve(EXIT.ok);
        };
        for (const c of children) c.once('exit', done);
        done();
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
    });
  },
};
