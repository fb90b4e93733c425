// A zip archive of already-compressed files (the sheet's colour PNG and white plate PNG), stored without
// recompression: PNGs are deflated already, so storing costs nothing in size and keeps the answer one copy.
import { crc32 } from 'node:zlib';

/** One file of the archive: its name (ASCII) and its bytes. */
export interface ZipEntry {
  name: string;
  data: Uint8Array;
}

/** Fixed DOS date/time (1980-01-01 00:00): the same input gives the same bytes. */
const DOS_TIME = 0;
const DOS_DATE = (0 << 9) | (1 << 5) | 1;

/**
 * The entries as a zip (method 0, stored). Each file must stay under 4 GiB (no zip64): a 22 x 200 in sheet's
 * PNG is a few hundred MB at most.
 * @example storedZip([{ name: 'sheet.png', data: png }, { name: 'sheet-white.png', data: white }])
 */
export function storedZip(entries: readonly ZipEntry[]): Uint8Array {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'latin1');
    const crc = crc32(e.data);
    const local = Buffer.alloc(30 + name.length);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed 2.0
    local.writeUInt16LE(0, 6); // flags
    local.writeUInt16LE(0, 8); // stored
    local.writeUInt16LE(DOS_TIME, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(e.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    name.copy(local, 30);
    const central = Buffer.alloc(46 + name.length);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4); // made by 2.0
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0, 8);
    central.writeUInt16LE(0, 10);
    central.writeUInt16LE(DOS_TIME, 12);
    central.writeUInt16LE(DOS_DATE, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(e.data.length, 20);
    central.writeUInt32LE(e.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    name.copy(central, 46);
    locals.push(local);
    centrals.push(central);
    offset += local.length + e.data.length;
  }
  const centralSize = centrals.reduce((s, c) => s + c.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  const out = new Uint8Array(offset + centralSize + end.length); // own ArrayBuffer: transferable
  let at = 0;
  entries.forEach((e, i) => {
    out.set(locals[i]!, at);
    at += locals[i]!.length;
    out.set(e.data, at);
    at += e.data.length;
  });
  for (const c of centrals) {
    out.set(c, at);
    at += c.length;
  }
  out.set(end, at);
  return out;
}

/**
 * The entries of a zip `storedZip` wrote (stored, no data descriptors), as views into `zip`; the CLI writes
 * the sheet's two PNGs as files this way.
 */
export function readStoredZip(zip: Uint8Array): ZipEntry[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const out: ZipEntry[] = [];
  let at = 0;
  while (at + 30 <= zip.length && view.getUint32(at, true) === 0x04034b50) {
    const size = view.getUint32(at + 18, true);
    const nameLen = view.getUint16(at + 26, true);
    const extra = view.getUint16(at + 28, true);
    const name = Buffer.from(zip.subarray(at + 30, at + 30 + nameLen)).toString('latin1');
    const start = at + 30 + nameLen + extra;
    out.push({ name, data: zip.subarray(start, start + size) });
    at = start + size;
  }
  return out;
}
