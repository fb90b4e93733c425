// Runs one op from its registry entry and turns any failure into the wire error form.
import { InkprepError, type WireError } from '../errors.js';
import { OPS, isOpName } from '../ops/registry.js';
import type { OpContext, OpDef, OpInput } from '../ops/types.js';

export type OpOutcome = { ok: true; value: unknown; transfer: ArrayBuffer[] } | { ok: false; error: WireError };

export async function runOpSafely(op: string, input: OpInput, options: unknown, ctx: OpContext): Promise<OpOutcome> {
  try {
    if (!isOpName(op)) throw new InkprepError('internal_error', `Unknown engine op ${op}`);
    const def = OPS[op] as unknown as OpDef<unknown, unknown, unknown>;
    const value = await def.run(input, options as Readonly<unknown>, ctx);
    return { ok: true, value, transfer: def.transfer ? def.transfer(value) : [] };
  } catch (err) {
    return { ok: false, error: toWireError(err) };
  }
}

export function toWireError(err: unknown): WireError {
  if (err instanceof InkprepError) return err.toWire();
  const message = err instanceof Error ? err.message : String(err);
  // Allocation failures on huge inputs are the image's fault, not a server fault.
  if (err instanceof RangeError && /allocation|Array buffer|Invalid typed array length/i.test(message)) {
    return { code: 'image_too_large', message: 'The image is too large to process', details: {} };
  }
  return { code: 'processing_failed', message: `Processing failed: ${message}`, details: {} };
}
