// A job's request as stored before the 202 (so any process can run it): the text fields and the file
// parts, in one result storage object: a 4-byte big-endian header length, the JSON header
// `{ v: 1, fields, sizes, ignored? }`, then the files' bytes one after the other.

/** What a job runs on: the form as the route received it. */
export interface JobRequest {
  fields: Record<string, string>;
  /** The file parts in order (one `image`, or the repeated field of POST /gangsheet). */
  files: Uint8Array[];
  /** What the submission's X-Ignored-Fields listed (escaped names, routes/unknown-fields.ts); its result lists them too. */
  ignored?: string[];
}

export function encodeRequest(r: JobRequest): Uint8Array {
  const head = Buffer.from(JSON.stringify({ v: 1, fields: r.fields, sizes: r.files.map((f) => f.byteLength), ...(r.ignored?.length ? { ignored: r.ignored } : {}) }), 'utf8');
  const total = 4 + head.byteLength + r.files.reduce((n, f) => n + f.byteLength, 0);
  const out = Buffer.allocUnsafe(total);
  out.writeUInt32BE(head.byteLength, 0);
  head.copy(out, 4);
  let at = 4 + head.byteLength;
  for (const f of r.files) {
    out.set(f, at);
    at += f.byteLength;
  }
  return out;
}

/** @throws Error when the bytes are not an encoded request (a store that lost or mangled it). */
export function decodeRequest(bytes: Uint8Array): JobRequest {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = b.readUInt32BE(0);
  const head = JSON.parse(b.subarray(4, 4 + n).toString('utf8')) as { v: number; fields: Record<string, string>; sizes: number[]; ignored?: string[] };
  if (head.v !== 1) throw new Error(`unknown stored job request version ${head.v}`);
  let at = 4 + n;
  const files = head.sizes.map((size) => {
    // Each file gets its own ArrayBuffer: the engine may take (transfer) it.
    const f = new Uint8Array(size);
    f.set(b.subarray(at, at + size));
    at += size;
    return f;
  });
  return { fields: head.fields, files, ...(head.ignored ? { ignored: head.ignored } : {}) };
}
