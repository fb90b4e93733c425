// Unguessable result keys: 24 random bytes (192 bits) as 32 url-safe base64 characters, plus an extension.
import { randomBytes } from 'node:crypto';

const KEY_RE = /^[A-Za-z0-9_-]{32}\.(png|jpg|webp|svg)$/;

/** Extension for a content type (png for anything unknown). */
export function extensionFor(contentType: string): string {
  if (contentType === 'image/jpeg') return 'jpg';
  if (contentType === 'image/webp') return 'webp';
  if (contentType === 'image/svg+xml') return 'svg';
  return 'png';
}

/** Content type for a key's extension. */
export function contentTypeFor(key: string): string {
  const ext = key.slice(key.lastIndexOf('.') + 1);
  return ext === 'jpg' ? 'image/jpeg' : ext === 'webp' ? 'image/webp' : ext === 'svg' ? 'image/svg+xml' : 'image/png';
}

/** A new random key with the extension of `contentType`. */
export function newKey(contentType: string): string {
  return `${randomBytes(24).toString('base64url')}.${extensionFor(contentType)}`;
}

/** True for a well-formed key (never a path: no dots besides the extension, no slashes). */
export function isValidKey(key: string): boolean {
  return KEY_RE.test(key);
}
