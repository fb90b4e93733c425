// Minimal ONNX protobuf writer: just enough of onnx.proto (ModelProto, GraphProto, NodeProto, TensorProto,
// ValueInfoProto, AttributeProto) to serialise a small feed-forward CNN for onnxruntime.
// Field numbers follow onnx/onnx `onnx/onnx.proto` (IR version 8); encoding is the protobuf wire format
// (varint = type 0, length-delimited = type 2, 32-bit float = type 5).

/** One graph node (an ONNX operator call). */
export interface OnnxNode {
  op: string;
  inputs: string[];
  outputs: string[];
  name: string;
  attrs?: Record<string, number | number[] | string>;
  /** Attribute names whose number values are floats (others are int64). */
  floatAttrs?: string[];
}

/** A float32 weight tensor. */
export interface OnnxInitializer {
  name: string;
  dims: number[];
  data: Float32Array;
}

/** A graph input or output: float32 with fixed (number) or symbolic (string) dimensions. */
export interface OnnxValue {
  name: string;
  dims: Array<number | string>;
}

export interface OnnxGraph {
  name: string;
  nodes: OnnxNode[];
  initializers: OnnxInitializer[];
  inputs: OnnxValue[];
  outputs: OnnxValue[];
  /** Default opset of the ai.onnx domain; default 13. */
  opset?: number;
}

class Writer {
  private chunks: Uint8Array[] = [];
  private size = 0;

  private push(b: Uint8Array): void {
    this.chunks.push(b);
    this.size += b.length;
  }

  varint(v: number): void {
    // Non-negative integers up to 2^53; negative ints are not needed by this writer.
    const out: number[] = [];
    let n = v;
    while (n >= 0x80) {
      out.push((n % 0x80) | 0x80);
      n = Math.floor(n / 0x80);
    }
    out.push(n);
    this.push(Uint8Array.from(out));
  }

  tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }

  int(field: number, v: number): void {
    this.tag(field, 0);
    this.varint(v);
  }

  bytes(field: number, b: Uint8Array): void {
    this.tag(field, 2);
    this.varint(b.length);
    this.push(b);
  }

  string(field: number, s: string): void {
    this.bytes(field, new TextEncoder().encode(s));
  }

  message(field: number, build: (w: Writer) => void): void {
    const w = new Writer();
    build(w);
    this.bytes(field, w.finish());
  }

  float(field: number, v: number): void {
    this.tag(field, 5);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, v, true);
    this.push(b);
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.size);
    let o = 0;
    for (const c of this.chunks) {
      out.set(c, o);
      o += c.length;
    }
    return out;
  }
}

const FLOAT = 1;
const ATTR_FLOAT = 1;
const ATTR_INT = 2;
const ATTR_STRING = 3;
const ATTR_INTS = 7;

function writeValueInfo(w: Writer, v: OnnxValue): void {
  w.string(1, v.name);
  w.message(2, (type) =>
    type.message(1, (tensor) => {
      tensor.int(1, FLOAT);
      tensor.message(2, (shape) => {
        for (const d of v.dims) shape.message(1, (dim) => (typeof d === 'number' ? dim.int(1, d) : dim.string(2, d)));
      });
    }),
  );
}

function writeNode(w: Writer, n: OnnxNode): void {
  for (const i of n.inputs) w.string(1, i);
  for (const o of n.outputs) w.string(2, o);
  w.string(3, n.name);
  w.string(4, n.op);
  for (const [key, value] of Object.entries(n.attrs ?? {})) {
    w.message(5, (a) => {
      a.string(1, key);
      if (typeof value === 'string') {
        a.string(4, value);
        a.int(20, ATTR_STRING);
      } else if (Array.isArray(value)) {
        for (const x of value) a.int(8, x);
        a.int(20, ATTR_INTS);
      } else if (n.floatAttrs?.includes(key)) {
        a.float(2, value);
        a.int(20, ATTR_FLOAT);
      } else {
        a.int(3, value);
        a.int(20, ATTR_INT);
      }
    });
  }
}

/** Serialise a graph as an ONNX model (IR version 8, ai.onnx opset 13 by default). */
export function writeOnnxModel(g: OnnxGraph): Uint8Array {
  const w = new Writer();
  w.int(1, 8); // ir_version
  w.string(2, 'inkprep'); // producer_name
  w.message(7, (graph) => {
    for (const n of g.nodes) graph.message(1, (node) => writeNode(node, n));
    graph.string(2, g.name);
    for (const init of g.initializers) {
      graph.message(5, (t) => {
        for (const d of init.dims) t.int(1, d);
        t.int(2, FLOAT);
        t.string(8, init.name);
        t.bytes(9, new Uint8Array(init.data.buffer, init.data.byteOffset, init.data.byteLength));
      });
    }
    for (const i of g.inputs) graph.message(11, (v) => writeValueInfo(v, i));
    for (const o of g.outputs) graph.message(12, (v) => writeValueInfo(v, o));
  });
  w.message(8, (op) => {
    op.string(1, '');
    op.int(2, g.opset ?? 13);
  });
  return w.finish();
}
