// Which uWebSockets.js build the service loads, through uws-load.ts's public functions: the newer
// @btc-vision/uwebsockets.js build first (Node 20-25, glibc 2.38+), then the trufflesuite build (Node 16-20;
// only for INKPREP_HTTP=uws: auto never picks it), else none (node:http serves), with a reason naming each
// build skipped and why. The cases run on a
// described host (its Node ABI, glibc and installed files); the last ones on this machine's real packages.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UWS_AUTO_PACKAGES, loadUws, loadUwsFrom, malformedFramingWarning, systemUwsHost, type UwsHost, type UwsModule } from '../../adapter-http/src/transport/uws-load.js';

const BTC = '/nm/@btc-vision/uwebsockets.js';
const TRUFFLE = '/nm/uWebSockets.js';
const PACKAGES: Record<string, { root: string; label: string }> = {
  '@btc-vision/uwebsockets.js': { root: BTC, label: '@btc-vision/uwebsockets.js 20.57.0' },
  'uWebSockets.js': { root: TRUFFLE, label: '@trufflesuite/uws-js-unofficial 20.30.0-unofficial.0' },
};
// The files the two packages really ship for linux-x64 (btc-vision at its root, trufflesuite in binaries/).
const FILES = [
  ...['115', '127', '137', '141'].map((abi) => `${BTC}/uws_linux_x64_${abi}.node`),
  ...['93', '108', '115'].map((abi) => `${TRUFFLE}/binaries/uws_linux_x64_${abi}.node`),
];

/** A host with Node of this ABI and this glibc; loading a btc-vision binary needs glibc 2.38. */
function host(abi: string, glibc: string | null, opts: { installed?: string[]; loadError?: string } = {}): UwsHost & { loaded: string[] } {
  const loaded: string[] = [];
  const installed = opts.installed ?? Object.keys(PACKAGES);
  return {
    platform: 'linux',
    arch: 'x64',
    abi,
    nodeVersion: { '115': 'v20.20.2', '127': 'v22.23.3', '137': 'v24.21.0', '141': 'v25.2.1' }[abi] ?? `v?-${abi}`,
    glibc,
    findPackage: (name) => (installed.includes(name) ? PACKAGES[name]! : null),
    exists: (file) => FILES.includes(file),
    load(file) {
      if (opts.loadError) throw new Error(opts.loadError);
      if (file.startsWith(BTC) && (glibc === null || Number(glibc.split('.')[1]) < 38)) {
        throw new Error(`/lib/x86_64-linux-gnu/libc.so.6: version \`GLIBC_2.38' not found (required by ${file})`);
      }
      loaded.push(file);
      return { file } as unknown as UwsModule;
    },
    loaded,
  };
}

describe('uWS build selection', () => {
  it('Node 24 on glibc 2.41 (Debian 13): the btc-vision build, nothing else tried', () => {
    const h = host('137', '2.41');
    const r = loadUwsFrom(h);
    expect(r).toMatchObject({ ok: true, build: '@btc-vision/uwebsockets.js 20.57.0', binary: `${BTC}/uws_linux_x64_137.node`, reason: '@btc-vision/uwebsockets.js 20.57.0 native build loaded' });
    expect(h.loaded).toEqual([`${BTC}/uws_linux_x64_137.node`]);
  });

  it('Node 20 on glibc 2.36 (Debian 12): btc-vision does not load, the trufflesuite build does, and the reason says why', () => {
    const r = loadUwsFrom(host('115', '2.36'));
    expect(r).toMatchObject({ ok: true, build: '@trufflesuite/uws-js-unofficial 20.30.0-unofficial.0', binary: `${TRUFFLE}/binaries/uws_linux_x64_115.node` });
    expect(r.reason).toBe('@trufflesuite/uws-js-unofficial 20.30.0-unofficial.0 native build loaded (@btc-vision/uwebsockets.js 20.57.0 needs glibc 2.38, this system has 2.36)');
  });

  it('Node 22 on glibc 2.36: no build loads, and the reason gives each build its own cause', () => {
    const r = loadUwsFrom(host('127', '2.36'));
    expect(r).toEqual({
      ok: false,
      reason: 'no uWebSockets.js native build loads: @btc-vision/uwebsockets.js 20.57.0 needs glibc 2.38, this system has 2.36; '
        + '@trufflesuite/uws-js-unofficial 20.30.0-unofficial.0 has no native build for Node v22.23.3 (linux-x64, ABI 127)',
    });
  });

  it('the optional btc-vision package not installed (npm ci --omit=optional): the trufflesuite build, saying so', () => {
    const r = loadUwsFrom(host('115', '2.41', { installed: ['uWebSockets.js'] }));
    expect(r).toMatchObject({ ok: true, build: '@trufflesuite/uws-js-unofficial 20.30.0-unofficial.0' });
    expect(r.reason).toMatch(/\(@btc-vision\/uwebsockets\.js is not installed\)$/);
  });

  it('a Node no build has a binary for (ABI 999): both named, nothing loaded', () => {
    const h = host('999', '2.41');
    const r = loadUwsFrom(h);
    expect(r.ok).toBe(false);
    expect(r.reason).toMatch(/@btc-vision\/uwebsockets\.js 20\.57\.0 has no native build for Node .* ABI 999\).*@trufflesuite.* ABI 999\)$/);
    expect(h.loaded).toEqual([]);
  });

  it('a musl system: the glibc requirement says there is no glibc', () => {
    const r = loadUwsFrom(host('137', null, { installed: ['@btc-vision/uwebsockets.js'] }));
    expect(r).toEqual({ ok: false, reason: 'no uWebSockets.js native build loads: @btc-vision/uwebsockets.js 20.57.0 needs glibc 2.38, this system has no glibc; uWebSockets.js is not installed' });
  });

  it('auto\'s builds (UWS_AUTO_PACKAGES): on Node 20 with glibc 2.36 none loads and the trufflesuite binary is never touched', () => {
    const h = host('115', '2.36');
    const r = loadUwsFrom(h, UWS_AUTO_PACKAGES);
    expect(r).toEqual({ ok: false, reason: 'no uWebSockets.js native build loads: @btc-vision/uwebsockets.js 20.57.0 needs glibc 2.38, this system has 2.36' });
    expect(h.loaded).toEqual([]);
    expect(loadUwsFrom(host('137', '2.41'), UWS_AUTO_PACKAGES)).toMatchObject({ ok: true, build: '@btc-vision/uwebsockets.js 20.57.0' });
  });

  it('only the trufflesuite build gets the malformed-framing start-up warning', () => {
    expect(malformedFramingWarning('@trufflesuite/uws-js-unofficial 20.30.0-unofficial.0')).toMatch(/^@trufflesuite\/uws-js-unofficial 20\.30\.0-unofficial\.0 closes the connection without any response/);
    expect(malformedFramingWarning('@btc-vision/uwebsockets.js 20.57.0')).toBeNull();
  });

  it('any other load failure is reported with the first line of its message', () => {
    const r = loadUwsFrom(host('115', '2.41', { loadError: 'libfoo.so: cannot open shared object file\nmore' }));
    expect(r.ok).toBe(false);
    expect(r.reason).toContain('@btc-vision/uwebsockets.js 20.57.0 failed to load on Node v20.20.2: libfoo.so: cannot open shared object file;');
    expect(r.reason).not.toContain('more');
  });
});

describe(`this machine (Node ${process.version}, glibc ${systemUwsHost().glibc ?? 'none'})`, () => {
  const sys = systemUwsHost();
  const [major, minor] = (sys.glibc ?? '0.0').split('.').map(Number) as [number, number];
  const newGlibc = major > 2 || (major === 2 && minor >= 38);

  it('both packages are installed where the loader looks, under the names and versions the notices list', () => {
    expect(sys.findPackage('@btc-vision/uwebsockets.js')?.label).toBe('@btc-vision/uwebsockets.js 20.57.0');
    expect(sys.findPackage('uWebSockets.js')?.label).toBe('@trufflesuite/uws-js-unofficial 20.30.0-unofficial.0');
    const btc = sys.findPackage('@btc-vision/uwebsockets.js')!.root;
    for (const abi of ['115', '127', '137', '141']) expect(sys.exists(path.join(btc, `uws_linux_x64_${abi}.node`)), `ABI ${abi}`).toBe(true);
  });

  it('loads the build this Node and glibc allow, and the reason names it', () => {
    const r = loadUws();
    if (newGlibc && ['115', '127', '137', '141'].includes(process.versions.modules)) {
      expect(r).toMatchObject({ ok: true, build: '@btc-vision/uwebsockets.js 20.57.0' });
    } else if (process.versions.modules === '115') {
      expect(r).toMatchObject({ ok: true, build: '@trufflesuite/uws-js-unofficial 20.30.0-unofficial.0' });
      expect(r.reason).toContain(`@btc-vision/uwebsockets.js 20.57.0 needs glibc 2.38, this system has ${sys.glibc}`);
    } else {
      expect(r.ok).toBe(false);
    }
    if (r.ok) expect(typeof r.uws.App).toBe('function');
  });

  it('auto loads uWS here exactly when the btc-vision build does (glibc >= 2.38)', () => {
    const auto = loadUws('auto');
    expect(auto.ok).toBe(newGlibc && ['115', '127', '137', '141'].includes(process.versions.modules));
    if (auto.ok) expect(auto.build).toBe('@btc-vision/uwebsockets.js 20.57.0');
  });
});
