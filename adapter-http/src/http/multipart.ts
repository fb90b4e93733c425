// multipart/form-data from the exchange's body stream through busboy, with limits enforced while streaming
// (before any decoding): the `image` file part is capped at the endpoint's byte limit, the whole body at that
// plus a small envelope allowance, and parts, fields and field sizes are capped. busboy backpressure pauses
// the socket. The body is not paused while the key is checked: with uWS 20.30, data that arrives during a
// pause before any body byte was read is not always delivered after resume (requests whose body came in a
// separate packet stalled).
import busboy from 'busboy';
import { createHash, type Hash } from 'node:crypto';
import { InkprepError } from '@inkprep/engine';
import type { Exchange } from './exchange.js';

/** Form limits of one endpoint. */
export interface FormLimits {
  /** Largest `image` file in bytes. */
  maxFileBytes: number;
  /** Text fields accepted (more -> 400). Default 32. */
  maxFields?: number;
  /** Largest text field value in bytes (longer -> 400 naming the field). Default 8 KiB. */
  maxFieldBytes?: number;
  /** Parts (fields + files) accepted. Default 40. */
  maxParts?: number;
  /** File parts accepted (only one, named `image`, is valid; any other file part is 400). Default 4. */
  maxFiles?: number;
  /** Hash the `image` bytes (SHA-256) as they stream in, for an idempotency key (no second pass over the file). */
  digest?: boolean;
  /**
   * The one per-route allowance for a repeated file field (POST /gangsheet: `design`, up to 50 times): files
   * go under this name instead of `image`, each in order; `maxFileBytes` then caps them all together (the
   * body limit is unchanged). Every other route keeps the single `image` part.
   */
  repeatedFile?: { name: string; max: number };
}

/** Extra body bytes allowed beyond the file limit for the multipart envelope and text fields. */
export const ENVELOPE_BYTES = 512 * 1024;

/** One uploaded file part. */
export interface FormFile {
  bytes: Uint8Array;
  filename: string;
  mimeType: string;
}

/** A parsed form: text fields and the `image` file (null when absent); with `repeatedFile`, every file part in order. */
export interface Form {
  fields: Record<string, string>;
  image: FormFile | null;
  /** Every file part in order (the one `image`, or the repeated field's parts). */
  files: FormFile[];
  /** SHA-256 hex of the file bytes when `digest` was asked for and a file came (several files: of their digests in order), else null. */
  imageDigest: string | null;
}

/** A body being read; `release(reason)` lifts a pause; `done` settles with the form or a limit error. */
export interface BodyReader {
  done: Promise<Form>;
  hold(reason: string): void;
  release(reason: string): void;
  /** Stop reading (the reply was sent early); later chunks are dropped. */
  stop(): void;
  /** Whether the whole body was read (a reply before that must close the connection). */
  readonly complete: boolean;
}

/** Start reading the body of `ex` (call synchronously in the route handler). */
export function readForm(ex: Exchange, limits: FormLimits): BodyReader {
  const maxBody = limits.maxFileBytes + ENVELOPE_BYTES;
  const holds = new Set<string>();
  let paused = false;
  let stopped = false;
  let complete = false;
  let settled = false;
  let resolveForm!: (f: Form) => void;
  let rejectForm!: (e: unknown) => void;
  const done = new Promise<Form>((res_, rej) => {
    resolveForm = res_;
    rejectForm = rej;
  });
  done.catch(() => {});

  const apply = (): void => {
    if (stopped || ex.aborted || complete) return;
    const want = holds.size > 0;
    if (want === paused) return;
    paused = want;
    if (want) ex.pauseBody();
    else ex.resumeBody();
  };
  const hold = (r: string): void => {
    holds.add(r);
    apply();
  };
  const release = (r: string): void => {
    holds.delete(r);
    apply();
  };

  let bb: busboy.Busboy | null = null;
  const fail = (err: InkprepError): void => {
    if (settled) return;
    settled = true;
    stopped = true;
    // Never destroy busboy from inside one of its own callbacks (it keeps using its state afterwards).
    const b = bb;
    if (b) setImmediate(() => b.destroy());
    rejectForm(err);
  };

  const fields: Record<string, string> = {};
  const fileName = limits.repeatedFile?.name ?? 'image';
  const maxFileParts = limits.repeatedFile?.max ?? 1;
  const parts: { chunks: Buffer[]; bytes: number; filename: string; mimeType: string; ended: boolean; hash: Hash | null }[] = [];
  let allFileBytes = 0;
  let bbClosed = false;
  const finish = (): void => {
    if (settled || !bbClosed || parts.some((p) => !p.ended)) return;
    // One allocation per file, which the engine can take ownership of (its ArrayBuffer is moved to the worker).
    const files = parts.map((p): FormFile => {
      const bytes = new Uint8Array(p.bytes);
      let o = 0;
      for (const c of p.chunks) {
        bytes.set(c, o);
        o += c.length;
      }
      p.chunks = [];
      return { bytes, filename: p.filename, mimeType: p.mimeType };
    });
    settled = true;
    const hashes = parts.map((p) => p.hash?.digest('hex') ?? '');
    const imageDigest = !limits.digest || parts.length === 0 ? null
      : parts.length === 1 ? hashes[0]! : createHash('sha256').update(hashes.join(',')).digest('hex');
    resolveForm({ fields, image: limits.repeatedFile ? null : files[0] ?? null, files, imageDigest });
  };

  if (ex.contentLength !== null && ex.contentLength > maxBody) {
    fail(tooLarge(limits.maxFileBytes, ex.contentLength));
  } else if (!/^multipart\/form-data/i.test(ex.contentType.trim())) {
    fail(new InkprepError('missing_image', 'Send the image as multipart/form-data with a file part named image'));
  } else {
    try {
      bb = busboy({
        headers: { 'content-type': ex.contentType },
        // Part names (and file names) are UTF-8, as browsers, FormData and curl send them; busboy's default,
        // latin1, turned `größe` into mojibake in X-Ignored-Fields and in the messages that name a field.
        defParamCharset: 'utf8',
        limits: {
          fileSize: limits.maxFileBytes,
          files: limits.maxFiles ?? Math.max(4, maxFileParts + 1),
          fields: limits.maxFields ?? 32,
          parts: limits.maxParts ?? 40 + maxFileParts,
          fieldSize: limits.maxFieldBytes ?? 8 * 1024,
          fieldNameSize: 200,
          headerPairs: 20,
        },
      });
    } catch (err) {
      fail(new InkprepError('missing_image', `The multipart body cannot be read: ${(err as Error).message}`));
    }
  }

  if (bb) {
    const b = bb;
    b.on('file', (name, stream, info) => {
      stream.on('error', () => {}); // destroying busboy after a limit errors its open file stream; already handled
      // Only `image` may be a file, once: a text field sent as a file (`-F scale=@two.txt`), an unknown file
      // or a second image would otherwise be dropped silently and the request run on defaults or the wrong file.
      const refusal = name !== fileName ? `Part ${name} was sent as a file, but ${fileName} is this endpoint's only file field: send the file as ${fileName} (or ${name} as a text field)`
        : parts.length >= maxFileParts
          ? (maxFileParts === 1 ? `The ${fileName} file was sent more than once; send one file part named ${fileName}` : `Too many ${fileName} files (at most ${maxFileParts})`)
          : null;
      if (refusal) {
        stream.resume();
        fail(new InkprepError('invalid_option', refusal, { field: name.slice(0, 64) }));
        return;
      }
      const part = { chunks: [] as Buffer[], bytes: 0, filename: info.filename ?? '', mimeType: info.mimeType ?? '', ended: false, hash: limits.digest ? createHash('sha256') : null };
      parts.push(part);
      stream.on('data', (c: Buffer) => {
        part.bytes += c.length;
        allFileBytes += c.length;
        // repeated files share the one file limit (each busboy stream only knows its own size)
        if (allFileBytes > limits.maxFileBytes) {
          fail(tooLarge(limits.maxFileBytes, null));
          return;
        }
        part.chunks.push(c);
        part.hash?.update(c);
      });
      stream.on('limit', () => fail(tooLarge(limits.maxFileBytes, null)));
      stream.on('end', () => {
        part.ended = true;
        finish();
      });
    });
    b.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(new InkprepError('invalid_option', `Field ${name} is longer than ${limits.maxFieldBytes ?? 8192} bytes`, { field: name }));
      else if (info.nameTruncated) fail(new InkprepError('invalid_option', 'A field name is too long', { field: name.slice(0, 64) }));
      // A field sent twice has no one value (`-F scale=2 -F scale=4`): refused, whatever its name, not first- or last-wins.
      else if (Object.prototype.hasOwnProperty.call(fields, name)) fail(new InkprepError('invalid_option', `Field ${name} was sent more than once; send it once`, { field: name }));
      else fields[name] = value;
    });
    b.on('partsLimit', () => fail(new InkprepError('invalid_option', `Too many form parts (at most ${limits.maxParts ?? 40})`, { field: 'form' })));
    b.on('filesLimit', () => fail(new InkprepError('invalid_option', `Too many file parts (at most ${limits.maxFiles ?? 4})`, { field: 'form' })));
    b.on('fieldsLimit', () => fail(new InkprepError('invalid_option', `Too many fields (at most ${limits.maxFields ?? 32})`, { field: 'form' })));
    b.on('error', (err: Error) => fail(new InkprepError('missing_image', `The multipart body is malformed: ${err.message}`)));
    b.on('close', () => {
      bbClosed = true;
      finish();
    });
  }

  ex.readBody((chunk, isLast) => {
    if (stopped) {
      if (isLast) complete = true;
      return;
    }
    const n = chunk.byteLength;
    ex.bytesIn += n;
    if (ex.bytesIn > maxBody) {
      fail(tooLarge(limits.maxFileBytes, null));
      return;
    }
    if (isLast) complete = true;
    try {
      if (n > 0 && bb) {
        const ok = bb.write(chunk);
        if (!ok && !isLast && !stopped) {
          hold('drain');
          bb.once('drain', () => release('drain'));
        }
      }
      if (isLast && !stopped) bb?.end();
    } catch (err) {
      // A parser failure must never escape into the transport (uWS would take the process down).
      fail(new InkprepError('missing_image', `The multipart body is malformed: ${(err as Error).message}`));
    }
  });
  ex.onAbort(() => fail(new InkprepError('aborted', 'The client disconnected during the upload')));

  return {
    done, hold, release,
    stop() {
      stopped = true;
      const b = bb;
      if (b && !b.destroyed) setImmediate(() => b.destroy());
    },
    get complete() {
      return complete;
    },
  };
}

function tooLarge(maxBytes: number, bytes: number | null): InkprepError {
  const mb = Math.round((maxBytes / (1024 * 1024)) * 100) / 100;
  return new InkprepError('image_too_large', `The upload exceeds this endpoint's limit of ${mb} MB`, bytes === null ? { maxBytes } : { maxBytes, bytes });
}
