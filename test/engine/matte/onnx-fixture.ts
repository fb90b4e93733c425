// Test fixture: a tiny ONNX segmentation model written by hand as protobuf bytes (no converter needed).
// Graph (opset 13): mask = Sigmoid((0.5 - ReduceMean(image, axes=[1], keepdims=1)) * 20): input `image`
// float [1, 3, S, S], output `mask` float [1, 1, S, S]. Dark art on a light background comes out as
// foreground with a confident (near 0 / near 1) mask, like a trained model's.

function varint(n: number | bigint): number[] {
  let v = BigInt(n);
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    out.push(b);
  } while (v > 0n);
  return out;
}
const key = (field: number, wire: number): number[] => varint((field << 3) | wire);
const int = (field: number, v: number): number[] => [...key(field, 0), ...varint(v)];
const bytes = (field: number, b: number[] | Uint8Array): number[] => [...key(field, 2), ...varint(b.length), ...b];
const str = (field: number, s: string): number[] => bytes(field, [...Buffer.from(s, 'utf8')]);

function valueInfo(name: string, dims: number[]): number[] {
  const shape = dims.flatMap((d) => bytes(1, int(1, d)));
  const tensorType = [...int(1, 1), ...bytes(2, shape)];
  return [...str(1, name), ...bytes(2, bytes(1, tensorType))];
}

/** The model bytes for input size S x S. */
export function brightnessMaskModel(size: number): Uint8Array {
  const scalar = (name: string, v: number): number[] => [...int(2, 1), ...str(8, name), ...bytes(9, new Uint8Array(new Float32Array([v]).buffer))];
  const reduce = [...str(1, 'image'), ...str(2, 'mean'), ...str(3, 'reduce'), ...str(4, 'ReduceMean'),
    ...bytes(5, [...str(1, 'axes'), ...int(20, 7), ...int(8, 1)]),
    ...bytes(5, [...str(1, 'keepdims'), ...int(20, 2), ...int(3, 1)])];
  const sub = [...str(1, 'half'), ...str(1, 'mean'), ...str(2, 'dark'), ...str(3, 'invert'), ...str(4, 'Sub')];
  const mul = [...str(1, 'dark'), ...str(1, 'gain'), ...str(2, 'logit'), ...str(3, 'scale'), ...str(4, 'Mul')];
  const sig = [...str(1, 'logit'), ...str(2, 'mask'), ...str(3, 'squash'), ...str(4, 'Sigmoid')];
  const graph = [...bytes(1, reduce), ...bytes(1, sub), ...bytes(1, mul), ...bytes(1, sig), ...str(2, 'brightness_mask'),
    ...bytes(5, scalar('half', 0.5)), ...bytes(5, scalar('gain', 20)),
    ...bytes(11, valueInfo('image', [1, 3, size, size])), ...bytes(12, valueInfo('mask', [1, 1, size, size]))];
  const model = [...int(1, 7), ...str(2, 'inkprep-test'), ...bytes(7, graph), ...bytes(8, [...str(1, ''), ...int(2, 13)])];
  return new Uint8Array(model);
}

/**
 * A model that ignores its input and answers a fixed mask (values 0-1, size x size, row-major): the image's
 * channel mean times 0, plus the mask as a constant. Stands in for a trained model's answer in refinement tests.
 */
export function fixedMaskModel(size: number, mask: Float32Array): Uint8Array {
  const scalar = (name: string, v: number): number[] => [...int(2, 1), ...str(8, name), ...bytes(9, new Uint8Array(new Float32Array([v]).buffer))];
  const plane = [...int(1, 1), ...int(1, 1), ...int(1, size), ...int(1, size), ...int(2, 1), ...str(8, 'answer'), ...bytes(9, new Uint8Array(mask.buffer, mask.byteOffset, mask.byteLength))];
  const reduce = [...str(1, 'image'), ...str(2, 'mean'), ...str(3, 'reduce'), ...str(4, 'ReduceMean'),
    ...bytes(5, [...str(1, 'axes'), ...int(20, 7), ...int(8, 1)]),
    ...bytes(5, [...str(1, 'keepdims'), ...int(20, 2), ...int(3, 1)])];
  const mul = [...str(1, 'mean'), ...str(1, 'zero'), ...str(2, 'nothing'), ...str(3, 'ignore'), ...str(4, 'Mul')];
  const add = [...str(1, 'nothing'), ...str(1, 'answer'), ...str(2, 'mask'), ...str(3, 'answer_it'), ...str(4, 'Add')];
  const graph = [...bytes(1, reduce), ...bytes(1, mul), ...bytes(1, add), ...str(2, 'fixed_mask'),
    ...bytes(5, scalar('zero', 0)), ...bytes(5, plane),
    ...bytes(11, valueInfo('image', [1, 3, size, size])), ...bytes(12, valueInfo('mask', [1, 1, size, size]))];
  const model = [...int(1, 7), ...str(2, 'inkprep-test'), ...bytes(7, graph), ...bytes(8, [...str(1, ''), ...int(2, 13)])];
  return new Uint8Array(model);
}
