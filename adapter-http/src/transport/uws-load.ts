// Loads uWebSockets.js's native build for this Node, or says why it cannot. The package's own entry is
// never run: on a Node without a matching binary it prints a non-JSON "not compatible" banner to stdout
// and falls back to a JavaScript emulation that breaks multipart bodies. Instead the binary for this
// platform, arch and ABI (process.versions.modules) is required directly when it exists.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The uWebSockets.js API (its native module exports exactly this). */
export type UwsModule = typeof import('uWebSockets.js');

export type UwsLoad = { ok: true; uws: UwsModule; binary: string } | { ok: false; reason: string };

let cached: UwsLoad | null = null;

/** The native uWS module for this process, loaded once; never prints, never falls back to the emulation. */
export function loadUws(): UwsLoad {
  return (cached ??= tryLoad());
}

/** The path of the native build for this Node, or why there is none (nothing is loaded). */
export function findUwsBinary(): { ok: true; binary: string } | { ok: false; reason: string } {
  const require = createRequire(import.meta.url);
  let entry: string;
  try {
    entry = require.resolve('uWebSockets.js');
  } catch {
    return { ok: false, reason: 'the uWebSockets.js package is not installed' };
  }
  const name = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
  // The package keeps its binaries in binaries/ beside src/ (trufflesuite build) or at its root (upstream).
  const pkgRoot = path.resolve(path.dirname(entry), '..');
  const candidates = [path.join(pkgRoot, 'binaries', name), path.join(path.dirname(entry), name), path.join(pkgRoot, name)];
  const binary = candidates.find((c) => existsSync(c));
  if (!binary) return { ok: false, reason: `uWebSockets.js has no native build for Node ${process.version} (${process.platform}-${process.arch}, ABI ${process.versions.modules})` };
  return { ok: true, binary };
}

function tryLoad(): UwsLoad {
  const found = findUwsBinary();
  if (!found.ok) return found;
  const { binary } = found;
  const require = createRequire(import.meta.url);
  try {
    return { ok: true, uws: require(binary) as UwsModule, binary };
  } catch (err) {
    return { ok: false, reason: `uWebSockets.js native build failed to load on Node ${process.version}: ${(err as Error).message.split('\n')[0]}` };
  }
}
