// Read the regular files of a gzip'd tarball (`npm pack` output) as a stream, without unpacking it to disk.
// Handles the ustar records npm writes: regular files, pax/GNU long-name records applied, the rest skipped.
import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';

/** Visit the regular files of a .tgz in order; `want` decides which ones are read (their bytes are passed on). */
export async function walkTar(tgz: string, want: (name: string) => boolean, onFile: (name: string, data: Buffer) => Promise<void> | void): Promise<void> {
  const stream = createReadStream(tgz).pipe(createGunzip());
  let buf: Buffer = Buffer.alloc(0);
  let longName: string | null = null;
  // State: reading a header, or `remaining` bytes of a file body (+ padding).
  let current: { name: string; size: number; pad: number; keep: boolean; parts: Buffer[]; got: number } | null = null;
  for await (const piece of stream as AsyncIterable<Buffer>) {
    buf = buf.length ? Buffer.concat([buf, piece]) : piece;
    for (;;) {
      if (!current) {
        if (buf.length < 512) break;
        const h = buf.subarray(0, 512);
        buf = buf.subarray(512);
        if (h.every((b) => b === 0)) continue; // end-of-archive blocks
        const field = (a: number, b: number): string => h.subarray(a, b).toString('utf8').replace(/\0.*$/s, '');
        const size = parseInt(field(124, 136).trim() || '0', 8);
        const type = String.fromCharCode(h[156]!);
        const prefix = field(345, 500);
        const name = longName ?? (prefix ? `${prefix}/${field(0, 100)}` : field(0, 100));
        longName = null;
        const keep = type === 'L' || type === 'x' || ((type === '0' || type === '\0') && want(name));
        current = { name: type === 'L' ? '\0L' : type === 'x' ? '\0x' : name, size, pad: (512 - (size % 512)) % 512, keep, parts: [], got: 0 };
      }
      const c = current;
      const need = c.size - c.got;
      if (need > 0) {
        if (!buf.length) break;
        const take = Math.min(need, buf.length);
        if (c.keep) c.parts.push(Buffer.from(buf.subarray(0, take)));
        c.got += take;
        buf = buf.subarray(take);
        if (c.got < c.size) break;
      }
      if (buf.length < c.pad) break;
      buf = buf.subarray(c.pad);
      current = null;
      if (!c.keep) continue;
      const data = Buffer.concat(c.parts);
      if (c.name === '\0L') longName = data.toString('utf8').replace(/\0.*$/s, '');
      else if (c.name === '\0x') {
        const m = /\d+ path=([^\n]*)\n/.exec(data.toString('utf8'));
        if (m) longName = m[1]!;
      } else await onFile(c.name, data);
    }
  }
}

