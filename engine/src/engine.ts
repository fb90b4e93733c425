// The Engine facade: owns a Piscina worker pool; every op is `engine.<op>(input, options, { signal })`.
// Options are validated here, on the calling thread, before any work is queued. Everything the engine needs
// from its host (paths, models) comes through EngineOptions and travels to the workers as their workerData.
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { existsSync } from 'node:fs';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { InkprepError, fromWire } from './errors.js';
import { DEFAULT_MAX_PIXELS } from './raster/decode.js';
import { OPS, isResolved, type OpName, type OptionsOf, type Resolved, type ResultOf } from './ops/registry.js';
import { isRaster, type OpDef, type OpInput } from './ops/types.js';
import type { ProgressPortMessage, ReplyMessage, TaskMessage } from './pool/messages.js';
import type { TextOptions } from './options/validate.js';
import { runOpSafely } from './pool/run-op.js';
import { safeSink, type ProgressEvent } from './progress.js';
import { resolveSettings, type ModelOptions } from './settings.js';
import { setMemoryCacheBytes } from './cache/memory.js';

/** Options of `createEngine`. All optional. */
export interface EngineOptions {
  /** Worker threads; default: available cores (at least 1). 0 runs ops on the calling thread (no pool). */
  threads?: number;
  /** Tasks allowed to wait for a worker before calls fail with `engine_overloaded`; default 256. */
  maxQueue?: number;
  /** Largest image decoded, in pixels; default 100,000,000. Calls may pass a stricter `maxPixels`. */
  maxPixels?: number;
  /** Milliseconds an idle worker stays alive; default 60,000. */
  idleTimeout?: number;
  /**
   * Directory where the engine keeps what it computes once: rendered blanks in `<dataDir>/cache/garments`.
   * Default: a folder of the OS temp directory. The engine never reads or writes elsewhere on its own.
   */
  dataDir?: string;
  /** Directory of the blank render cache when it is not `<dataDir>/cache/garments`. */
  garmentCacheDir?: string;
  /** The segmentation models remove-bg may use (a model directory, a model path, threads); default none. */
  models?: ModelOptions;
  /**
   * Megabytes the engine may keep in memory between calls, in all (an integer, 0-1,048,576; default 256):
   * rendered garment blanks (neutral, coloured, resampled to an output size), prepared garment photos and
   * resampled mockup designs. Split evenly between the worker threads (each caches on its own: 256 MB over 2
   * threads is 128 MB each; with `threads: 0` the calling thread has it all), least recently used out first.
   * 0 caches nothing in memory: every mockup reloads its blank from the disk cache. Working memory of a
   * running op is not counted (see docs/guides/operating.md#memory).
   */
  memoryCacheMb?: number;
}

/** Per-call options. */
export interface CallOptions {
  /** Abort the task: queued tasks are dropped, running ones have their worker stopped. Rejects with `aborted`. */
  signal?: AbortSignal;
  /** Stricter pixel limit for this call (e.g. 25 MP for remove-bg). */
  maxPixels?: number;
  /**
   * Move the input's bytes to the worker instead of copying them (default false: the caller's buffer is never
   * touched). With `true` the input's ArrayBuffer is detached after the call, as with `postMessage` transfer;
   * an input that is a view into a larger or shared buffer (e.g. a pooled `Buffer`) is still copied, since
   * moving it would empty bytes the caller does not know it shares.
   */
  transfer?: boolean;
  /**
   * Progress of the call: the stage running and the share done (see docs/guides/embedding-the-engine.md#progress-events). Called on the
   * calling thread, every event before the call settles and none after (from a pool worker too; an aborted
   * call rejects at once and drops the events still on their way).
   */
  onProgress?: (event: ProgressEvent) => void;
}

/**
 * Options of op K: typed (`OptionsOf<K>`), text fields wrapped by `textOptions` (what HTTP and the CLI
 * receive), or a value already resolved by `resolveOptions` (taken as it is).
 */
export type OpOptions<K extends OpName> = OptionsOf<K> | TextOptions | Resolved<K>;

type OpMethods = { [K in OpName]: (input: OpInput, options?: OpOptions<K>, call?: CallOptions) => Promise<ResultOf<K>> };

/** The engine: one method per op plus lifecycle. */
export type Engine = OpMethods & {
  /** Run an op by name. */
  run<K extends OpName>(op: K, input: OpInput, options?: OpOptions<K>, call?: CallOptions): Promise<ResultOf<K>>;
  /** Tasks running and waiting in the pool; `maxQueue` waiting tasks make the next call `engine_overloaded`; `closed` after close(). */
  stats(): { threads: number; running: number; queued: number; maxQueue: number; closed: boolean };
  /** Finish queued work and stop the workers. */
  close(): Promise<void>;
};

const RESOLVED_DEFAULTS = { maxQueue: 256, maxPixels: DEFAULT_MAX_PIXELS, idleTimeout: 60_000 } as const;

/** Path of the built worker entry (CommonJS, see pool/worker-entry.cts); from source (tests) the build in engine/dist is used, since Piscina needs a real JS file. */
export function workerFilename(): string {
  const here = fileURLToPath(import.meta.url);
  const candidate = here.endsWith('.ts') ? path.resolve(path.dirname(here), '../dist/pool/worker-entry.cjs') : path.resolve(path.dirname(here), 'pool/worker-entry.cjs');
  if (!existsSync(candidate)) throw new InkprepError('internal_error', `Engine worker not built: ${candidate} is missing (run npm run build)`);
  return candidate;
}

function ownsWholeBuffer(a: Uint8Array | Uint8ClampedArray): boolean {
  return a.byteOffset === 0 && a.byteLength === a.buffer.byteLength && a.buffer instanceof ArrayBuffer;
}

/** A detached ArrayBuffer refuses new views (Node 20 has no `ArrayBuffer.prototype.detached`). */
function isDetached(buffer: ArrayBufferLike): boolean {
  if (!(buffer instanceof ArrayBuffer)) return false;
  try {
    new Uint8Array(buffer, 0, 0);
    return false;
  } catch {
    return true;
  }
}

/**
 * Check the input's shape and that its bytes are still there. A detached buffer (moved to another thread
 * earlier, e.g. by a previous call with `{ transfer: true }`) is the caller's mistake, so `invalid_option`.
 */
function checkInput(input: unknown): asserts input is OpInput {
  if (input === undefined || input === null) throw new InkprepError('missing_image', 'The image is missing: pass the encoded file bytes or a Raster');
  const data = input instanceof Uint8Array ? input
    : typeof input === 'object' && input !== null && isRaster(input as OpInput) ? (input as { data: unknown }).data
    : undefined;
  if (!(data instanceof Uint8Array || data instanceof Uint8ClampedArray)) {
    throw new InkprepError('invalid_option', 'Expected the input to be a Uint8Array of the encoded file or a Raster { width, height, data: Uint8ClampedArray }', { field: 'input' });
  }
  if (isDetached(data.buffer)) {
    throw new InkprepError('invalid_option', 'The input buffer is detached (its bytes were moved to another thread, e.g. by an earlier call with { transfer: true }); pass a buffer that still holds the image', { field: 'input' });
  }
}

/**
 * What is posted to the worker and which buffer is moved with it. By default the bytes are copied once into
 * a buffer of their own, which is then moved (one memcpy, no structured-clone copy of a larger parent
 * buffer); with `transfer: true` an input owning its whole buffer is moved as it is.
 */
function outgoing(input: OpInput, transfer: boolean): { input: OpInput; transferList: ArrayBuffer[] } {
  const data = isRaster(input) ? input.data : input;
  if (transfer && ownsWholeBuffer(data)) return { input, transferList: [data.buffer as ArrayBuffer] };
  if (isRaster(input)) {
    const copy = new Uint8ClampedArray(input.data);
    return { input: { width: input.width, height: input.height, data: copy }, transferList: [copy.buffer] };
  }
  const copy = new Uint8Array(input);
  return { input: copy, transferList: [copy.buffer] };
}

/** The progress channel of one pool call: its worker end travels with the task. */
interface ProgressChannel {
  worker: MessagePort;
  /** Settles once every event the worker posted has gone to the sink: at its end marker, or when its port closes. */
  drained: Promise<void>;
  /** Stop delivering (the call settles now) and close our end. */
  close(): void;
}

/**
 * Events arriving on our end go to `sink` until close(). The worker posts its end marker after the op's last
 * event and then closes its end; a worker that dies closes it too, so `drained` never waits on a dead thread.
 */
function progressChannel(sink: (e: ProgressEvent) => void): ProgressChannel {
  const { port1, port2 } = new MessageChannel();
  let open = true;
  let ended = (): void => {};
  const drained = new Promise<void>((resolve) => (ended = resolve));
  port1.on('message', (m: ProgressPortMessage) => {
    if (!open) return;
    if (m === null) ended();
    else sink(m);
  });
  port1.once('close', () => ended());
  return {
    worker: port2,
    drained,
    close: () => {
      open = false;
      ended();
      port1.close();
    },
  };
}

/** Wait for `done`, or reject with `aborted` as soon as the signal fires (an aborted call never waits on). */
async function unlessAborted(done: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return done;
  if (signal.aborted) throw new InkprepError('aborted', 'The operation was aborted');
  let onAbort = (): void => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new InkprepError('aborted', 'The operation was aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([done, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * Create an engine.
 * @example
 * const engine = createEngine({ threads: 2 });
 * const info = await engine.info(await readFile('art.png'));
 * await engine.close();
 */
export function createEngine(options: EngineOptions = {}): Engine {
  const threads = options.threads ?? Math.max(1, os.availableParallelism());
  const maxQueue = options.maxQueue ?? RESOLVED_DEFAULTS.maxQueue;
  const maxPixels = options.maxPixels ?? RESOLVED_DEFAULTS.maxPixels;
  if (!Number.isInteger(threads) || threads < 0) throw new InkprepError('invalid_option', 'Expected an integer >= 0 for threads', { field: 'threads' });
  const settings = resolveSettings(options, threads);
  const pool = threads > 0
    ? new Piscina({ filename: workerFilename(), workerData: settings, minThreads: Math.min(1, threads), maxThreads: threads, maxQueue, idleTimeout: options.idleTimeout ?? RESOLVED_DEFAULTS.idleTimeout })
    : null;
  let closed = false;
  let inFlight = 0;
  // Pool tasks not yet settled: close() waits for all of them, so draining never depends on Piscina's closeTimeout.
  const pending = new Set<Promise<unknown>>();
  // Piscina emits 'error' (e.g. a close timeout); without a listener an EventEmitter 'error' would crash the process.
  pool?.on('error', () => {});

  async function run<K extends OpName>(op: K, input: OpInput, raw?: OpOptions<K>, call: CallOptions = {}): Promise<ResultOf<K>> {
    if (closed) throw new InkprepError('shutting_down', 'The engine is closed');
    const def = OPS[op] as unknown as OpDef<unknown, unknown, ResultOf<K>>;
    checkInput(input);
    // Resolved once at the boundary (resolveOptions) is taken as it is; anything else is validated here.
    const resolved = isResolved(op, raw) ? raw : def.resolve(raw);
    const limit = Math.min(maxPixels, call.maxPixels ?? maxPixels);
    if (call.signal?.aborted) throw new InkprepError('aborted');
    const onProgress = safeSink(call.onProgress);
    if (!pool) {
      // In-thread: the cache is this thread's, shared by every in-thread engine of it; the caller's budget rules.
      setMemoryCacheBytes(settings.memoryCacheBytes);
      const out = await runOpSafely(op, input, resolved, { maxPixels: limit, settings, ...(onProgress ? { progress: onProgress } : {}) });
      if (!out.ok) throw fromWire(out.error);
      return out.value as ResultOf<K>;
    }
    const sent = outgoing(input, call.transfer === true);
    const task: TaskMessage = { op, input: sent.input, options: resolved, maxPixels: limit };
    const progress = onProgress ? progressChannel(onProgress) : null;
    if (progress) task.progress = progress.worker;
    let reply: ReplyMessage;
    inFlight++;
    try {
      const settled = pool.run(task, { signal: call.signal ?? null, transferList: progress ? [...sent.transferList, progress.worker] : sent.transferList });
      pending.add(settled);
      const forget = () => pending.delete(settled);
      settled.then(forget, forget);
      reply = (await settled) as ReplyMessage;
      // The reply came on Piscina's channel; events the worker posted before it may still be on their way on
      // the progress port. They go to the listener before the call settles (and none after, see close()).
      if (progress) await unlessAborted(progress.drained, call.signal);
    } catch (err) {
      if (err instanceof InkprepError && err.code === 'aborted') throw err;
      if (call.signal?.aborted || (err as { name?: string }).name === 'AbortError') throw new InkprepError('aborted', 'The operation was aborted', {}, { cause: err });
      if (/queue is at limit/i.test((err as Error).message ?? '')) throw new InkprepError('engine_overloaded', 'The engine queue is full; try again shortly');
      throw new InkprepError('processing_failed', `Worker failed: ${(err as Error).message ?? String(err)}`, {}, { cause: err });
    } finally {
      inFlight--;
      progress?.close();
    }
    if (!reply.ok) throw fromWire(reply.error);
    return reply.value as ResultOf<K>;
  }

  const engine = {
    run,
    stats: () => {
      const queued = pool ? pool.queueSize : 0;
      return { threads, running: Math.max(0, inFlight - queued), queued, maxQueue, closed };
    },
    async close() {
      if (closed) return;
      closed = true;
      if (!pool) return;
      while (pending.size) await Promise.allSettled([...pending]);
      await pool.close();
    },
  } as Engine;
  for (const name of Object.keys(OPS) as OpName[]) {
    (engine as unknown as Record<string, unknown>)[name] = (input: OpInput, o?: unknown, c?: CallOptions) => run(name, input, o as never, c);
  }
  return engine;
}
