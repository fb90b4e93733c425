// Which IP addresses a webhook may be sent to without the operator's say-so: public unicast only. Loopback,
// private (RFC 1918), CGNAT, link-local, unique-local, multicast, unspecified, documentation and benchmark
// ranges are refused, and so are IPv6 forms that carry an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64,
// 6to4, Teredo), judged by the IPv4 address inside, so `::ffff:10.0.0.1` is as private as `10.0.0.1`.
import { BlockList, isIP } from 'node:net';

const V4_BLOCKED: readonly [string, number][] = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // CGNAT (shared address space)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];

const V6_BLOCKED: readonly [string, number][] = [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

const blocked = new BlockList();
for (const [a, p] of V4_BLOCKED) blocked.addSubnet(a, p, 'ipv4');
for (const [a, p] of V6_BLOCKED) blocked.addSubnet(a, p, 'ipv6');

/** The eight 16-bit groups of an IPv6 address (any textual form, with or without a dotted IPv4 tail). */
function groups(ip: string): number[] {
  let s = ip.toLowerCase().replace(/%.*$/, '');
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (v4) {
    const b = v4[1]!.split('.').map(Number);
    s = s.slice(0, -v4[1]!.length) + `${((b[0]! << 8) | b[1]!).toString(16)}:${((b[2]! << 8) | b[3]!).toString(16)}`;
  }
  const [head, tail] = s.split('::') as [string, string | undefined];
  const h = head === '' ? [] : head.split(':');
  const t = tail === undefined || tail === '' ? [] : tail.split(':');
  const fill = tail === undefined ? [] : Array<string>(8 - h.length - t.length).fill('0');
  return [...h, ...fill, ...t].map((g) => parseInt(g, 16));
}

function v4Of(hi: number, lo: number): string {
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4, Teredo), or null. */
export function embeddedIPv4(ip: string): string | null {
  const g = groups(ip);
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zero(0, 5) && g[5] === 0xffff) return v4Of(g[6]!, g[7]!); // ::ffff:a.b.c.d
  if (zero(0, 6) && (g[6] !== 0 || g[7]! > 1)) return v4Of(g[6]!, g[7]!); // ::a.b.c.d (deprecated compatible)
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return v4Of(g[6]!, g[7]!); // NAT64 64:ff9b::/96
  if (g[0] === 0x2002) return v4Of(g[1]!, g[2]!); // 6to4 2002:AABB:CCDD::/48
  if (g[0] === 0x2001 && g[1] === 0) return v4Of(g[6]! ^ 0xffff, g[7]! ^ 0xffff); // Teredo client, obfuscated
  return null;
}

/** Whether a webhook may go to this address without the operator listing its host: a public unicast address. */
export function isPublicAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return !blocked.check(ip, 'ipv4');
  if (family !== 6) return false;
  const bare = ip.replace(/%.*$/, '');
  if (blocked.check(bare, 'ipv6')) return false;
  const inner = embeddedIPv4(bare);
  return inner === null || !blocked.check(inner, 'ipv4');
}
