// Who holds a pending reservation: every store that reserves registers this process as an instance
// (a row with a heartbeat). A reservation stays pending until its request succeeds (confirmed) or fails
// (released); pending rows of an instance that is gone are released by a sweep, so a crash (kill -9, a lost
// host) never keeps units counted. "Gone" means: its heartbeat is older than the lease, or, at once, it ran
// on this same kernel and pid namespace and its pid no longer exists.
import { readFileSync, readlinkSync } from 'node:fs';
import os from 'node:os';

// The default lease is the configuration's (INKPREP_RESERVATION_LEASE_MS), re-exported for the store's users.
import { DEFAULT_RESERVATION_LEASE_MS } from '../config.js';
export { DEFAULT_RESERVATION_LEASE_MS };

/** How an instance is identified and judged. */
export interface InstanceIdentity {
  /** Boot id + pid namespace: equal only for processes that see the same pid table (null when unknown). */
  hostKey: string | null;
  host: string;
  pid: number;
}

/** Timing derived from the lease: heartbeat 6 times and sweep 3 times per lease. */
export interface LeaseTiming {
  leaseMs: number;
  heartbeatMs: number;
  sweepMs: number;
}

export function leaseTiming(leaseMs: number = DEFAULT_RESERVATION_LEASE_MS): LeaseTiming {
  return Object.freeze({ leaseMs, heartbeatMs: Math.max(100, Math.floor(leaseMs / 6)), sweepMs: Math.max(200, Math.floor(leaseMs / 3)) });
}

function hostKeyOfThisProcess(): string | null {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const ns = readlinkSync('/proc/self/ns/pid');
    return boot && ns ? `${boot}/${ns}` : null;
  } catch {
    return null; // not Linux: only the heartbeat lease applies
  }
}

let self: InstanceIdentity | null = null;
/** This process's identity (computed once). */
export function thisInstance(): InstanceIdentity {
  return (self ??= Object.freeze({ hostKey: hostKeyOfThisProcess(), host: os.hostname(), pid: process.pid }));
}

/**
 * True only when the instance surely ended: it shared this process's pid table and its pid is gone.
 * A reused pid reads as alive (its rows then wait for the lease): the safe side.
 */
export function endedHere(row: { host_key: string | null; pid: number }): boolean {
  const me = thisInstance();
  if (me.hostKey === null || row.host_key !== me.hostKey) return false;
  if (row.pid === me.pid) return false;
  try {
    process.kill(row.pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
