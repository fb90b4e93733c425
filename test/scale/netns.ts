// "Separate hosts" on one machine for the scale tests: each host is a Linux network namespace joined to
// the root namespace by a veth pair with its own /30-style subnet, so a server inside it shares nothing
// with the others but the kernel: no loopback, no 127.0.0.1 PostgreSQL. PostgreSQL (which listens on
// 127.0.0.1 here) is reached through a small TCP relay in this test process, bound on each veth's
// root-side address. Needs root and the `ip` command; `netnsUnavailableReason()` says why not otherwise.
// `teardown()` deletes the namespaces (which removes the veth pairs) and closes the relay.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import net from 'node:net';
import { relay } from './tcp-relay.js';

export interface Host {
  /** Namespace name (for `ip netns exec`). */
  ns: string;
  /** The host's own address (servers inside listen here; the test reaches them on it). */
  address: string;
  /** The root namespace's address on this host's link (where the relay listens). */
  gateway: string;
  /** Command prefix running a program on this host. */
  wrap: string[];
}

export interface Hosts {
  hosts: Host[];
  /** DATABASE_URL as seen from `host`: the relay on its gateway, same database and credentials. */
  dbUrlFor(host: Host, dbUrl: string): string;
  teardown(): Promise<void>;
}

/**
 * Namespaces of this suite left by a run killed before its cleanup (SIGKILL skips even 'exit'): removed
 * when nothing runs in them and they are older than 10 minutes (a live run has its servers inside).
 */
function sweepStale(): void {
  const list = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout ?? '';
  for (const name of list.split('\n').map((l) => l.split(' ')[0]!).filter((n) => /^inkl[0-9a-f]{4}h\d+$/.test(n))) {
    const pids = (spawnSync('ip', ['netns', 'pids', name], { encoding: 'utf8' }).stdout ?? '').trim();
    let ageMs = 0;
    try {
      ageMs = Date.now() - statSync(`/run/netns/${name}`).mtimeMs;
    } catch {
      continue;
    }
    if (pids === '' && ageMs > 600_000) ip(['netns', 'del', name]);
  }
}

function ip(args: string[]): { ok: boolean; err: string } {
  const r = spawnSync('ip', args, { encoding: 'utf8' });
  return { ok: r.status === 0, err: (r.stderr || r.error?.message || '').trim() };
}

/** null when namespaces can be made here, else why not (printed by the skipping suite). */
export function netnsUnavailableReason(): string | null {
  if (process.platform !== 'linux') return `network namespaces need Linux (this is ${process.platform})`;
  if (typeof process.getuid === 'function' && process.getuid() !== 0) return 'creating network namespaces needs root';
  const probe = `inkprobe${randomBytes(3).toString('hex')}`;
  const add = ip(['netns', 'add', probe]);
  if (!add.ok) return `ip netns add failed: ${add.err || 'no ip command'}`;
  ip(['netns', 'del', probe]);
  return null;
}

/**
 * Create `n` hosts and a relay to PostgreSQL at `pgHost:pgPort` (as seen from this process).
 * @throws Error naming the `ip` command that failed (anything created so far is removed first)
 */
export async function createHosts(n: number, pgHost: string, pgPort: number): Promise<Hosts> {
  sweepStale();
  const tag = randomBytes(2).toString('hex');
  // 10.213.x.0/24 with x random per run and not in use by another run on this machine.
  const inUse = spawnSync('ip', ['-o', 'addr', 'show'], { encoding: 'utf8' }).stdout ?? '';
  let base = 64 + (randomBytes(1)[0]! % 128);
  for (let tries = 0; tries < 32 && Array.from({ length: n }, (_, i) => inUse.includes(`10.213.${base + i}.`)).some(Boolean); tries++) {
    base = 64 + (randomBytes(1)[0]! % 128);
  }
  const hosts: Host[] = [];
  const servers: net.Server[] = [];
  const sockets = new Set<net.Socket>();
  const removeAll = (): void => {
    for (const h of hosts.splice(0)) ip(['netns', 'del', h.ns]);
  };
  // A test process that ends without its afterAll (killed runner, crash) still removes its namespaces.
  process.once('exit', removeAll);
  const teardown = async (): Promise<void> => {
    for (const s of sockets) s.destroy();
    await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
    removeAll();
    process.off('exit', removeAll);
  };
  const run = (args: string[]): void => {
    const r = ip(args);
    if (!r.ok) throw new Error(`ip ${args.join(' ')}: ${r.err}`);
  };
  const relayPorts = new Map<Host, number>();
  try {
    for (let i = 0; i < n; i++) {
      const ns = `inkl${tag}h${i}`;
      const outer = `inkl${tag}o${i}`;
      const inner = `inkl${tag}i${i}`;
      const gateway = `10.213.${base + i}.1`;
      const address = `10.213.${base + i}.2`;
      run(['netns', 'add', ns]);
      hosts.push({ ns, address, gateway, wrap: ['ip', 'netns', 'exec', ns] });
      run(['link', 'add', outer, 'type', 'veth', 'peer', 'name', inner]);
      run(['link', 'set', inner, 'netns', ns]);
      run(['addr', 'add', `${gateway}/24`, 'dev', outer]);
      run(['link', 'set', outer, 'up']);
      run(['netns', 'exec', ns, 'ip', 'addr', 'add', `${address}/24`, 'dev', inner]);
      run(['netns', 'exec', ns, 'ip', 'link', 'set', inner, 'up']);
      run(['netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up']);
    }
    // A relay on every gateway address: each connection is piped to PostgreSQL, and closing
    // either side closes the other (so a killed server's PostgreSQL session ends as it would directly).
    for (const h of hosts) {
      const srv = net.createServer((inbound) => relay(inbound, pgHost, pgPort, sockets));
      servers.push(srv);
      await new Promise<void>((resolve, reject) => {
        srv.once('error', reject);
        srv.listen(0, h.gateway, () => {
          relayPorts.set(h, (srv.address() as net.AddressInfo).port);
          resolve();
        });
      });
    }
  } catch (err) {
    await teardown();
    throw err;
  }
  return {
    hosts,
    dbUrlFor(host, dbUrl) {
      const u = new URL(dbUrl);
      u.hostname = host.gateway;
      u.port = String(relayPorts.get(host));
      return u.toString();
    },
    teardown,
  };
}
