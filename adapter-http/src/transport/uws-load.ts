// Loads a uWebSockets.js native build for this Node, or says why none loads. Two builds are tried, in order:
// 1. `@btc-vision/uwebsockets.js` (optional dependency): binaries for Node 20, 22, 24 and 25, but linked
//    against glibc 2.38 (Debian 13, Ubuntu 24.04; not Debian 12);
// 2. `uWebSockets.js` (= `@trufflesuite/uws-js-unofficial`): binaries for Node 16-20, older glibc. Only for
//    `INKPREP_HTTP=uws` (UWS_AUTO_PACKAGES leaves it out): its parser closes a request with a malformed or
//    unacceptable Content-Length without any answer (docs/guides/operating.md "Malformed requests"), and a
//    client must receive one, so `auto` prefers node:http to it.
// A package's own entry is never run: the trufflesuite one prints a non-JSON "not compatible" banner to
// stdout on a Node it has no binary for and falls back to a JavaScript emulation that breaks multipart
// bodies; the btc-vision one throws. Instead the binary for this platform, arch and ABI
// (process.versions.modules) is required directly when it exists. Both builds have the API uws.ts uses
// (index.d.ts of each compared: App/any/listen, the HttpRequest getters, onData/onAborted/onWritable,
// cork/writeStatus/writeHeader/end/tryEnd/getWriteOffset/close, us_listen_socket_close, us_socket_local_port).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The uWebSockets.js API (its native module exports exactly this). */
export type UwsModule = typeof import('uWebSockets.js');

export type UwsLoad = { ok: true; uws: UwsModule; binary: string; build: string; reason: string } | { ok: false; reason: string };

/** The builds tried for `INKPREP_HTTP=uws`, in order, by the name they are installed under. */
export const UWS_PACKAGES: readonly string[] = ['@btc-vision/uwebsockets.js', 'uWebSockets.js'];

/** The builds `INKPREP_HTTP=auto` may pick: those that answer every malformed request before closing. */
export const UWS_AUTO_PACKAGES: readonly string[] = ['@btc-vision/uwebsockets.js'];

/** Which builds a load may pick: `auto` (UWS_AUTO_PACKAGES) or `uws` (UWS_PACKAGES, any that loads). */
export type UwsScope = 'auto' | 'uws';

/**
 * Builds whose parser closes malformed-framing requests without a response, by package label prefix, with
 * the start-up warning the service logs when it runs on one (only possible with `INKPREP_HTTP=uws`).
 */
const SILENT_CLOSE_BUILDS: readonly string[] = ['@trufflesuite/uws-js-unofficial '];

/** The start-up warning for a build that closes malformed-framing requests silently, or null. */
export function malformedFramingWarning(build: string): string | null {
  if (!SILENT_CLOSE_BUILDS.some((p) => build.startsWith(p))) return null;
  return `${build} closes the connection without any response to a Content-Length that is not a number, `
    + 'has 10 or more digits, or comes with Transfer-Encoding (node:http and the @btc-vision build answer 400/413); '
    + 'see docs/guides/operating.md "Malformed requests"';
}

/** An installed uWS package: where it is and what it calls itself. */
export interface UwsPackage {
  root: string;
  /** `name version` from its package.json, e.g. `@btc-vision/uwebsockets.js 20.57.0`. */
  label: string;
}

/** What the choice depends on; `systemUwsHost()` is this process's, tests pass their own. */
export interface UwsHost {
  platform: string;
  arch: string;
  /** process.versions.modules */
  abi: string;
  nodeVersion: string;
  /** The C library's version (e.g. `2.36`), or null when not glibc. */
  glibc: string | null;
  /** The installed package for an install name, or null when it is not installed. */
  findPackage(name: string): UwsPackage | null;
  exists(file: string): boolean;
  /** Loads a native module; throws dlopen's error when it cannot. */
  load(file: string): UwsModule;
}

const cached = new Map<UwsScope, UwsLoad>();

/**
 * The native uWS module for this process among the builds of `scope` (default `uws`: any build that
 * loads), loaded once; never prints, never falls back to the emulation.
 */
export function loadUws(scope: UwsScope = 'uws'): UwsLoad {
  let r = cached.get(scope);
  if (!r) cached.set(scope, (r = loadUwsFrom(systemUwsHost(), scope === 'auto' ? UWS_AUTO_PACKAGES : UWS_PACKAGES)));
  return r;
}

/**
 * The first build in UWS_PACKAGES that loads on this host. `reason` says which one runs and why the ones
 * before it did not (the start-up log line); when none loads, it says why for each.
 */
export function loadUwsFrom(host: UwsHost, packages: readonly string[] = UWS_PACKAGES): UwsLoad {
  const skipped: string[] = [];
  for (const name of packages) {
    const pkg = host.findPackage(name);
    if (!pkg) {
      skipped.push(`${name} is not installed`);
      continue;
    }
    const binary = binaryOf(host, pkg.root);
    if (!binary) {
      skipped.push(`${pkg.label} has no native build for Node ${host.nodeVersion} (${host.platform}-${host.arch}, ABI ${host.abi})`);
      continue;
    }
    try {
      const uws = host.load(binary);
      const reason = `${pkg.label} native build loaded` + (skipped.length ? ` (${skipped.join('; ')})` : '');
      return { ok: true, uws, binary, build: pkg.label, reason };
    } catch (err) {
      skipped.push(whyNotLoaded(pkg.label, (err as Error).message, host));
    }
  }
  return { ok: false, reason: `no uWebSockets.js native build loads: ${skipped.join('; ')}` };
}

/** The binary for this platform, arch and ABI in a package, or null. */
function binaryOf(host: UwsHost, root: string): string | null {
  const name = `uws_${host.platform}_${host.arch}_${host.abi}.node`;
  // Binaries live in binaries/ (trufflesuite build) or at the package root (btc-vision, upstream).
  const candidates = [path.join(root, 'binaries', name), path.join(root, name)];
  return candidates.find((c) => host.exists(c)) ?? null;
}

/** dlopen's message turned into one clause; a missing glibc symbol version names both versions. */
function whyNotLoaded(label: string, message: string, host: UwsHost): string {
  const glibc = /version [`']GLIBC_([\d.]+)' not found/.exec(message);
  if (glibc) return `${label} needs glibc ${glibc[1]}, this system has ${host.glibc ?? 'no glibc'}`;
  return `${label} failed to load on Node ${host.nodeVersion}: ${message.split('\n')[0]}`;
}

/** This process's host: its Node, its C library, the packages node_modules resolves for this file. */
export function systemUwsHost(): UwsHost {
  const require = createRequire(import.meta.url);
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return {
    platform: process.platform,
    arch: process.arch,
    abi: process.versions.modules,
    nodeVersion: process.version,
    glibc: header?.glibcVersionRuntime ?? null,
    findPackage(name) {
      let entry: string;
      try {
        entry = require.resolve(name);
      } catch {
        return null;
      }
      return packageOf(entry);
    },
    exists: existsSync,
    load: (file) => require(file) as UwsModule,
  };
}

/** The package a resolved entry file belongs to (the nearest package.json with a name above it). */
function packageOf(entry: string): UwsPackage | null {
  // package.json is not always reachable by require.resolve (btc-vision's `exports` leaves it out): walk up.
  for (let dir = path.dirname(entry); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name) return { root: dir, label: `${pkg.name} ${pkg.version ?? ''}`.trim() };
  }
  return null;
}
