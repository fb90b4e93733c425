// Progress of long ops: each op declares its stages with their share of a typical run (measured, see
// docs/guides/embedding-the-engine.md, "Progress events"), and reports when a stage starts and, inside loops, how far it is. The Engine hands
// the events to `CallOptions.onProgress` (from a pool worker through a MessagePort).

/** One progress event of a running op. */
export interface ProgressEvent {
  /** The stage running now, e.g. `decode`, `quantize`, `trace`, `encode` (each op's stages are in docs/guides/embedding-the-engine.md). */
  stage: string;
  /** Share of the whole op done, 0..1; never decreases within one call. */
  fraction: number;
}

/** Receives progress events (the caller's `onProgress`, or the worker's port). */
export type ProgressSink = (event: ProgressEvent) => void;

/** Report that `stage` started (`done` 0) or is `done` (0..1) through; `label` renames the stage in the event. */
export type StageReporter<S extends string> = (stage: S, done?: number, label?: string) => void;

/** Smallest step between two events of the same stage: at most ~100 events per op. */
const MIN_STEP = 0.01;

/**
 * A reporter for an op whose stages run in the order of `weights` (relative shares of a typical run; a
 * stage an input does not need is skipped and its share jumped over). No sink: a no-op.
 * @example const p = stageProgress(ctx.progress, { decode: 5, trace: 90, encode: 5 }); p('trace', 0.5);
 */
export function stageProgress<S extends string>(sink: ProgressSink | undefined, weights: Readonly<Record<S, number>>): StageReporter<S> {
  if (!sink) return () => {};
  const names = Object.keys(weights) as S[];
  const total = names.reduce((s, k) => s + weights[k], 0) || 1;
  const start = {} as Record<S, number>;
  let acc = 0;
  for (const k of names) {
    start[k] = acc / total;
    acc += weights[k];
  }
  let lastStage = '';
  let last = -1;
  return (stage, done = 0, label) => {
    const name = label ?? stage;
    const within = Math.min(1, Math.max(0, Number.isFinite(done) ? done : 0));
    const fraction = Math.max(last, Math.min(1, start[stage] + (within * weights[stage]) / total));
    if (name === lastStage && fraction - last < MIN_STEP) return;
    lastStage = name;
    last = fraction;
    sink({ stage: name, fraction: Math.round(fraction * 1000) / 1000 });
  };
}

/** Wrap a caller's callback so that its exceptions never fail the op. */
export function safeSink(fn: ProgressSink | undefined): ProgressSink | undefined {
  if (!fn) return undefined;
  return (e) => {
    try {
      fn(e);
    } catch {
      // A broken progress display must not fail the work it reports on.
    }
  };
}
