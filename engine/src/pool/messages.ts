// Messages between the Engine (main thread) and its Piscina workers.
import type { WireError } from '../errors.js';
import type { OpInput } from '../ops/types.js';

export interface TaskMessage {
  op: string;
  input: OpInput;
  options: unknown;
  maxPixels: number;
}

export type ReplyMessage = { ok: true; value: unknown } | { ok: false; error: WireError };
