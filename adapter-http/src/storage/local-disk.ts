// Local-disk ResultStorage: one file per result under `<dataDir>/results/<first 2 key chars>/<key>`,
// written to a temporary name then renamed, so a reader never sees half a file. Retention: results are
// kept for `retentionMs` (null = forever, the default: hosted URLs stay valid); `sweep` deletes older ones.
import { mkdir, readFile, rename, rm, stat, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { contentTypeFor, isValidKey, newKey } from './keys.js';
import type { PutObject, ResultStorage, StoredObject } from './types.js';

export interface LocalDiskOptions {
  /** Root folder; results go to `<dir>/<aa>/<key>`. */
  dir: string;
  /** Keep results this long in ms; null (default) keeps them until deleted. */
  retentionMs?: number | null;
  /** Clock for retention (tests). */
  clock?: () => number;
}

export class LocalDiskStorage implements ResultStorage {
  readonly kind = 'local-disk';
  private readonly dir: string;
  private readonly retentionMs: number | null;
  private readonly clock: () => number;

  constructor(opts: LocalDiskOptions) {
    this.dir = path.resolve(opts.dir);
    this.retentionMs = opts.retentionMs ?? null;
    this.clock = opts.clock ?? Date.now;
  }

  private fileOf(key: string): string {
    return path.join(this.dir, key.slice(0, 2), key);
  }

  async put(obj: PutObject): Promise<string> {
    const key = newKey(obj.contentType);
    const file = this.fileOf(key);
    await mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    try {
      await writeFile(tmp, obj.bytes);
      await rename(tmp, file);
    } catch (err) {
      await rm(tmp, { force: true }).catch(() => undefined);
      throw err;
    }
    return key;
  }

  async get(key: string): Promise<StoredObject | null> {
    if (!isValidKey(key)) return null;
    const file = this.fileOf(key);
    try {
      const [bytes, st] = await Promise.all([readFile(file), stat(file)]);
      const createdAt = st.mtimeMs;
      if (this.retentionMs !== null && this.clock() - createdAt > this.retentionMs) return null;
      return { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), contentType: contentTypeFor(key), createdAt };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async delete(key: string): Promise<boolean> {
    if (!isValidKey(key)) return false;
    try {
      await rm(this.fileOf(key));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  }

  async sweep(now = this.clock()): Promise<number> {
    if (this.retentionMs === null) return 0;
    let removed = 0;
    let shards: string[];
    try {
      shards = await readdir(this.dir);
    } catch {
      return 0;
    }
    for (const shard of shards) {
      const sub = path.join(this.dir, shard);
      let names: string[];
      try {
        names = await readdir(sub);
      } catch {
        continue;
      }
      for (const name of names) {
        if (!isValidKey(name)) continue;
        const st = await stat(path.join(sub, name)).catch(() => null);
        if (st && now - st.mtimeMs > this.retentionMs) {
          await rm(path.join(sub, name), { force: true });
          removed++;
        }
      }
    }
    return removed;
  }
}
