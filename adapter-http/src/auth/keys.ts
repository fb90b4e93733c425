// API key secrets: generation (`ink_live_` + 40 base62 characters from 32 random bytes), hashing
// (SHA-256; fine for high-entropy secrets, no slow hash needed) and extraction from request headers.
import * as crypto from 'node:crypto';
import { createHash, randomBytes } from 'node:crypto';

/** Every generated key starts with this, so leaked keys are recognisable (e.g. by secret scanners). */
export const KEY_PREFIX = 'ink_live_';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A new random key secret: `ink_live_` + 40 base62 characters (about 238 bits). */
export function generateKeySecret(): string {
  const bytes = randomBytes(48);
  let out = KEY_PREFIX;
  for (let i = 0; out.length < KEY_PREFIX.length + 40 && i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b < 248) out += ALPHABET[b % 62]; // 248 = 4 * 62: no modulo bias
  }
  while (out.length < KEY_PREFIX.length + 40) out += ALPHABET[randomBytes(1)[0]! % 62];
  return out;
}

/** Hex SHA-256 of a key secret: the only form stored. */
export function hashKey(secret: string): string {
  return oneShot ? oneShot('sha256', secret, 'hex') : createHash('sha256').update(secret, 'utf8').digest('hex');
}
// crypto.hash (Node >= 20.12) avoids a Hash object per call; fall back where it is missing.
const oneShot = (crypto as { hash?: (alg: string, data: string, enc: 'hex') => string }).hash;

/** The shown part of a key in listings: the prefix plus 4 characters. */
export function keyDisplayPrefix(secret: string): string {
  return secret.startsWith(KEY_PREFIX) ? secret.slice(0, KEY_PREFIX.length + 4) : secret.slice(0, 4) + '...';
}

/** Constant-time comparison of two hex hashes (every character is compared, whatever differs first). */
export function sameHash(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * The key a request carries: `x-api-key: <key>` or `Authorization: Bearer <key>` (x-api-key wins when
 * both are present). Returns null when neither is present or the value is empty.
 */
export function extractKey(xApiKey: string, authorization: string): string | null {
  const direct = xApiKey.trim();
  if (direct) return direct;
  const m = /^\s*bearer\s+(\S+)\s*$/i.exec(authorization);
  return m ? m[1]! : null;
}
