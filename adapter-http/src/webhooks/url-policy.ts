// Where a webhook may go (SSRF policy), checked twice: at submission on the URL as written (a bad
// `callback_url` is 400 `invalid_callback_url` before any work), and at every delivery on the addresses the
// host resolves to then, since DNS can change in between. https only, except hosts the operator lists in
// INKPREP_WEBHOOK_ALLOW_HOSTS, which may also be plain http and loopback or private; any other host must be,
// and resolve only to, public addresses. The delivery connects to the very address checked here
// (send.ts pins it), so a second DNS answer cannot swap it.
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { ServiceError } from '../errors/registry.js';
import { isPublicAddress } from './addresses.js';

/** Longest `callback_url` accepted (characters). */
export const MAX_CALLBACK_URL_LENGTH = 2048;

/** Resolves a host name to all its addresses (node:dns lookup by default; tests hand their own). */
export type Resolver = (hostname: string) => Promise<readonly { address: string; family: number }[]>;

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** The URL's host as compared with the allow list: lower case, IPv6 without brackets. */
function hostOf(u: URL): string {
  return u.hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
}

function refuse(reason: string): ServiceError {
  return new ServiceError('invalid_callback_url', `callback_url ${reason}`, { field: 'callback_url' });
}

/**
 * The submission check of a `callback_url`: an absolute https URL (or http to an allowed host), no user or
 * password in it, and not an address literal or `localhost` name outside the allow list.
 * @throws ServiceError 400 `invalid_callback_url`
 */
export function checkCallbackUrl(raw: string, allowHosts: readonly string[]): URL {
  if (raw.length > MAX_CALLBACK_URL_LENGTH) throw refuse(`is longer than ${MAX_CALLBACK_URL_LENGTH} characters`);
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw refuse('is not an absolute URL');
  }
  const host = hostOf(u);
  const allowed = allowHosts.includes(host);
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && allowed)) {
    throw refuse(u.protocol === 'http:' ? `must be https (plain http only to hosts the operator allows; ${host} is not one)` : 'must be an https URL');
  }
  if (u.username !== '' || u.password !== '') throw refuse('must not carry a user name or password');
  if (!allowed) {
    if (isIP(host) !== 0 && !isPublicAddress(host)) throw refuse(`names a loopback, private or reserved address (${host}) the operator does not allow`);
    if (host === 'localhost' || host.endsWith('.localhost')) throw refuse(`names ${host}, which the operator does not allow`);
  }
  return u;
}

/** Where one delivery connects: the checked address, and whether the operator allowed the host. */
export interface Target {
  url: URL;
  address: string;
  family: 4 | 6;
}

/**
 * The delivery check: the URL again (the allow list may have changed), then the host's addresses now. A host
 * not on the allow list must resolve only to public addresses (one private answer refuses it: a rebinding
 * name may offer both). Returns the address to connect to.
 * @throws ServiceError `invalid_callback_url` (recorded as the attempt's error; the delivery is not retried)
 */
export async function resolveTarget(raw: string, allowHosts: readonly string[], resolve: Resolver = systemResolver): Promise<Target> {
  const url = checkCallbackUrl(raw, allowHosts);
  const host = hostOf(url);
  const literal = isIP(host);
  const addresses = literal !== 0 ? [{ address: host, family: literal }] : await resolve(host);
  if (addresses.length === 0) throw new Error(`${host} has no address`);
  if (!allowHosts.includes(host)) {
    const bad = addresses.find((a) => !isPublicAddress(a.address));
    if (bad) throw refuse(`host ${host} resolves to ${bad.address}, a loopback, private or reserved address the operator does not allow`);
  }
  const first = addresses[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
