// The client's address for the request log: the socket's peer, or, when that peer is a trusted proxy
// (INKPREP_TRUSTED_PROXY: addresses and CIDRs), the right-most X-Forwarded-For hop that is not itself a
// trusted proxy. Hops left of it were written by the client and are not believed (a client can send any
// X-Forwarded-For; only what our own proxies appended is known to be true).
import { BlockList, isIP } from 'node:net';

/** The trusted proxies, parsed once; `null` when none are configured (X-Forwarded-For is then ignored). */
export type TrustedProxies = BlockList | null;

/** The eight 16-bit groups of an address that isIP() calls IPv6, or null. */
function ipv6Groups(v: string): number[] | null {
  // A dotted IPv4 tail (`::ffff:10.0.0.1`) becomes its two hex groups first.
  const text = v.replace(/(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/, (_m, a: string, b: string, c: string, d: string) =>
    `${((Number(a) << 8) | Number(b)).toString(16)}:${((Number(c) << 8) | Number(d)).toString(16)}`);
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parse = (h: string): number[] => (h === '' ? [] : h.split(':').map((x) => parseInt(x, 16)));
  const l = parse(halves[0]!);
  const r = halves.length === 2 ? parse(halves[1]!) : [];
  const fill = 8 - l.length - r.length;
  if (fill < 0 || (halves.length === 1 && fill !== 0) || [...l, ...r].some((x) => !(x >= 0 && x <= 0xffff))) return null;
  return [...l, ...new Array<number>(fill).fill(0), ...r];
}

/**
 * One spelling per address, so logs and the trusted-proxy check agree whatever the transport reports:
 * an IPv4 peer on a dual-stack socket (`::ffff:10.0.0.1`, or uWS's expanded
 * `0000:0000:0000:0000:0000:ffff:0a00:0001`) -> `10.0.0.1`; other IPv6 addresses in the short form (RFC 5952).
 */
export function normalizeAddress(a: string): string {
  const v = a.trim();
  if (isIP(v) !== 6 || v.includes('%')) return v; // IPv4, not an address, or scoped (link-local with a zone): as given
  const g = ipv6Groups(v);
  if (!g) return v;
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`;
  // The longest run of two or more zero groups becomes "::" (the first such run on a tie).
  let best = -1, bestLen = 1;
  for (let i = 0; i < 8;) {
    if (g[i] !== 0) { i++; continue; }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen) { best = i; bestLen = j - i; }
    i = j;
  }
  const hex = g.map((x) => x.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}

/**
 * Parse `INKPREP_TRUSTED_PROXY`: a comma- or space-separated list of IPv4/IPv6 addresses and CIDRs
 * (`10.0.0.0/8, 127.0.0.1, fd00::/8`). Empty or unset -> null.
 * @throws Error naming the entry that is not an address or CIDR
 */
export function parseTrustedProxies(text: string | undefined): TrustedProxies {
  const entries = (text ?? '').split(/[\s,]+/).filter((e) => e !== '');
  if (entries.length === 0) return null;
  const list = new BlockList();
  for (const e of entries) {
    const [addr = '', bits, extra] = e.split('/');
    const a = normalizeAddress(addr);
    const family = isIP(a);
    const n = bits === undefined ? null : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
    if (family === 0 || extra !== undefined || Number.isNaN(n) || (n !== null && n > (family === 4 ? 32 : 128))) {
      throw new Error(`Expected IP addresses or CIDRs (e.g. 10.0.0.0/8, 127.0.0.1) for INKPREP_TRUSTED_PROXY but received ${JSON.stringify(e)}`);
    }
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (n === null) list.addAddress(a, type);
    else list.addSubnet(a, n, type);
  }
  return list;
}

function trusted(list: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The client address of a request: `peer` (the socket's remote address) unless it is a trusted proxy, then
 * the right-most untrusted hop of `forwardedFor` (all hops trusted: the left-most one). A malformed hop ends
 * the walk at the last good one, so garbage in the header never becomes "the client".
 */
export function clientAddress(peer: string, forwardedFor: string, proxies: TrustedProxies): string {
  const p = normalizeAddress(peer);
  if (!proxies || forwardedFor === '' || !trusted(proxies, p)) return p;
  let client = p;
  const hops = forwardedFor.split(',');
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalizeAddress(hops[i]!);
    if (isIP(hop) === 0) break;
    client = hop;
    if (!trusted(proxies, hop)) break;
  }
  return client;
}
