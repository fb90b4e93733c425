// Messages between the Engine (main thread) and its Piscina workers.
import type { WireError } from '../errors.js';
import type { MessagePort } from 'node:worker_threads';
import type { OpInput } from '../ops/types.js';

export interface TaskMessage {
  op: string;
  input: OpInput;
  options: unknown;
  maxPixels: number;
  /** Port for progress events (ProgressEvent messages) when the caller listens; the worker closes it. */
  progress?: MessagePort;
}

export type ReplyMessage = { ok: true; value: unknown } | { ok: false; error: WireError };
