// Several design files travel to the engine as one input (the op API takes one buffer, and one buffer moves
// to a worker without copying): a small container of length-prefixed files. `packDesigns` is public.
import { InkprepError } from '../errors.js';

const MAGIC = 'INKGANG1';

/**
 * The design files of a gang sheet as the one input `engine.gangsheet` takes (item `design` = index here).
 * @example await engine.gangsheet(packDesigns([logo, badge]), { items: [{ design: 0, quantity: 4, widthIn: 3 }] })
 */
export function packDesigns(files: readonly Uint8Array[]): Uint8Array {
  const head = 8 + 4 + 4 * files.length;
  const out = new Uint8Array(head + files.reduce((s, f) => s + f.byteLength, 0));
  const view = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) out[i] = MAGIC.charCodeAt(i);
  view.setUint32(8, files.length);
  let at = head;
  files.forEach((f, i) => {
    view.setUint32(12 + 4 * i, f.byteLength);
    out.set(f, at);
    at += f.byteLength;
  });
  return out;
}

/** The files of a packed input; a plain image file is taken as the only design. */
export function unpackDesigns(input: Uint8Array): Uint8Array[] {
  const isPacked = input.byteLength >= 12 && String.fromCharCode(...input.subarray(0, 8)) === MAGIC;
  if (!isPacked) return [input];
  const view = new DataView(input.buffer, input.byteOffset, input.byteLength);
  const n = view.getUint32(8);
  const head = 12 + 4 * n;
  if (head > input.byteLength) throw new InkprepError('image_unreadable', 'The packed design list is truncated');
  const out: Uint8Array[] = [];
  let at = head;
  for (let i = 0; i < n; i++) {
    const len = view.getUint32(12 + 4 * i);
    if (at + len > input.byteLength) throw new InkprepError('image_unreadable', 'The packed design list is truncated');
    out.push(input.subarray(at, at + len));
    at += len;
  }
  return out;
}
