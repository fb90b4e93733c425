// Messages between the Engine (main thread) and its Piscina workers.
import type { WireError } from '../errors.js';
import type { MessagePort } from 'node:worker_threads';
import type { OpInput } from '../ops/types.js';
import type { ProgressEvent } from '../progress.js';

export interface TaskMessage {
  op: string;
  input: OpInput;
  options: unknown;
  maxPixels: number;
  /** Port for progress events (ProgressPortMessage) when the caller listens; the worker ends and closes it. */
  progress?: MessagePort;
}

export type ReplyMessage = { ok: true; value: unknown } | { ok: false; error: WireError };

/**
 * What the worker posts on the progress port: the op's events, then `null` once the op has finished (failed
 * or not). The port is not Piscina's channel, so its messages may arrive after the reply; the main side waits
 * for the `null` before settling the call, so no event posted before the reply is lost.
 */
export type ProgressPortMessage = ProgressEvent | null;
