// The short-lived in-process holder: when the result storage cannot take a finished image, the image is
// kept here for `ttlMs` (default 15 minutes) and handed out through a link that expires
// (`output_hosted_by: provider`, `output_url_expires: true`). Bounded in bytes: the oldest entries are
// dropped first when a new one would exceed `maxBytes` (default 512 MiB). Lost on restart by design.
import { contentTypeFor, isValidKey, newKey } from './keys.js';
import type { PutObject, StoredObject } from './types.js';

export interface HolderOptions {
  /** How long an entry stays readable, in ms; default 900,000 (15 minutes). */
  ttlMs?: number;
  /** Total bytes held; default 512 MiB. */
  maxBytes?: number;
  clock?: () => number;
}

export const DEFAULT_HOLD_MS = 15 * 60 * 1000;

export class TemporaryHolder {
  readonly ttlMs: number;
  private readonly maxBytes: number;
  private readonly clock: () => number;
  private readonly items = new Map<string, StoredObject & { expiresAt: number }>();
  private bytes = 0;

  constructor(opts: HolderOptions = {}) {
    this.ttlMs = opts.ttlMs ?? DEFAULT_HOLD_MS;
    this.maxBytes = opts.maxBytes ?? 512 * 1024 * 1024;
    this.clock = opts.clock ?? Date.now;
  }

  /** Keep an object; returns its key and when it expires (ms since the epoch). */
  put(obj: PutObject): { key: string; expiresAt: number } {
    this.prune();
    // Map iteration is insertion order: the first entries are the oldest.
    for (const [k, v] of this.items) {
      if (this.bytes + obj.bytes.byteLength <= this.maxBytes) break;
      this.items.delete(k);
      this.bytes -= v.bytes.byteLength;
    }
    const key = newKey(obj.contentType);
    const now = this.clock();
    const expiresAt = now + this.ttlMs;
    this.items.set(key, { bytes: obj.bytes, contentType: contentTypeFor(key), createdAt: now, expiresAt });
    this.bytes += obj.bytes.byteLength;
    return { key, expiresAt };
  }

  /** The object, or null when unknown or expired. */
  get(key: string): (StoredObject & { expiresAt: number }) | null {
    if (!isValidKey(key)) return null;
    const it = this.items.get(key);
    if (!it) return null;
    if (this.clock() >= it.expiresAt) {
      this.items.delete(key);
      this.bytes -= it.bytes.byteLength;
      return null;
    }
    return it;
  }

  /** Drop expired entries. */
  prune(): void {
    const now = this.clock();
    for (const [k, v] of this.items) {
      if (now >= v.expiresAt) {
        this.items.delete(k);
        this.bytes -= v.bytes.byteLength;
      }
    }
  }

  /** Entries and bytes held (metrics, tests). */
  size(): { entries: number; bytes: number } {
    return { entries: this.items.size, bytes: this.bytes };
  }
}
