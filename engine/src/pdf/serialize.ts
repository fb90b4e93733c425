// Serialises PDF objects into a file: header, numbered objects, the cross-reference table and the trailer.
// Object 1 is the catalog. Shared by the vectorize PDF writer and the underbase separation file; no metadata
// or dates, so the bytes are a pure function of the objects.

/** One indirect object's body, in parts (strings are latin1; byte parts are stream data). */
export type PdfObject = readonly (string | Uint8Array)[];

/**
 * The file for `objects` (numbered from 1 in order; object 1 must be the catalog).
 * @example serializePdf([['<< /Type /Catalog /Pages 2 0 R >>'], ...], '1.4')
 */
export function serializePdf(objects: readonly PdfObject[], version: string): Uint8Array {
  const parts: Buffer[] = [];
  let offset = 0;
  const push = (p: string | Uint8Array) => {
    const b = typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p.buffer, p.byteOffset, p.byteLength);
    parts.push(b);
    offset += b.length;
  };
  // the second line's high bytes tell transfer programs the file is binary
  push(`%PDF-${version}\n%\xe2\xe3\xcf\xd3\n`);
  const xref: number[] = [];
  objects.forEach((obj, i) => {
    xref.push(offset);
    push(`${i + 1} 0 obj\n`);
    for (const p of obj) push(p);
    push('\nendobj\n');
  });
  const start = offset;
  push(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${xref.map((o) => String(o).padStart(10, '0') + ' 00000 n \n').join('')}`);
  push(`trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${start}\n%%EOF\n`);
  const pdf = new Uint8Array(offset); // own ArrayBuffer (Buffer.concat may use the shared pool): transferable
  let at = 0;
  for (const b of parts) {
    pdf.set(b, at);
    at += b.length;
  }
  return pdf;
}
