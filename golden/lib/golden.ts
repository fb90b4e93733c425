// Golden runner: cases are auto-discovered from golden/cases/<area>.ts (each exports `cases: GoldenCase[]`),
// expected outputs live in golden/expected/<area>/<name>.png|svg, and comparison is perceptual
// (golden/lib/metrics.ts: ΔE over mid-grey composites, luminance SSIM, alpha IoU; SVGs rasterised with
// resvg first, never string-compared). On failure the actual, expected and diff images are written to
// golden/diff/<area>/ (gitignored). `npm run golden:update [area ...]` rewrites expected files.
import { mkdirSync, readdirSync, existsSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compareRasters, decodeToRaster, diffRaster, rasteriseSvg, rasterToPng, type RasterMetrics } from './metrics.js';
import type { Raster } from '@inkprep/engine';

/** Per-case limits; a case passes when every limit holds. Defaults in `DEFAULT_TOLERANCE`. */
export interface GoldenTolerance {
  /** Largest allowed per-pixel CIE76 ΔE (over mid-grey). Default: unchecked (Infinity). */
  maxDeltaE?: number;
  /** Largest allowed 99th-percentile ΔE. Default 5. */
  p99DeltaE?: number;
  /** Largest allowed mean ΔE over all pixels. Default 1. */
  meanDeltaE?: number;
  /** Smallest allowed luminance SSIM. Default 0.98. */
  minSsim?: number;
  /** Smallest allowed IoU of the alpha >= 128 masks. Default 0.99. */
  minAlphaIoU?: number;
}

export const DEFAULT_TOLERANCE: Required<GoldenTolerance> = { maxDeltaE: Infinity, p99DeltaE: 5, meanDeltaE: 1, minSsim: 0.98, minAlphaIoU: 0.99 };

/** One golden case. `produce` returns PNG bytes (`kind: 'png'`) or SVG text/bytes (`kind: 'svg'`). */
export interface GoldenCase {
  /** File-name-safe name, unique within the area: [a-z0-9._-]. */
  name: string;
  kind: 'png' | 'svg';
  tolerance?: GoldenTolerance;
  /** SVG only: width in px both SVGs are rasterised to before comparing; default 512. */
  rasterWidth?: number;
  produce(): Promise<Uint8Array | string>;
}

/** Outcome of checking one case. */
export interface GoldenResult {
  area: string;
  name: string;
  ok: boolean;
  /** Why it failed (limits broken, size mismatch, missing expected file). */
  message: string;
  metrics: RasterMetrics | null;
}

export const GOLDEN_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CASES_DIR = path.join(GOLDEN_DIR, 'cases');
const EXPECTED_DIR = path.join(GOLDEN_DIR, 'expected');
const DIFF_DIR = path.join(GOLDEN_DIR, 'diff');
/** Expected files must stay small (committed to git). */
export const MAX_EXPECTED_BYTES = 200 * 1024;
export const MAX_EXPECTED_SIDE = 512;

/** Area names: the files golden/cases/<area>.ts. */
export function listAreas(): string[] {
  if (!existsSync(CASES_DIR)) return [];
  return readdirSync(CASES_DIR).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')).map((f) => f.slice(0, -3)).sort();
}

/** Import golden/cases/<area>.ts and validate its case list. */
export async function loadArea(area: string): Promise<GoldenCase[]> {
  const mod = (await import(pathToFileURL(path.join(CASES_DIR, `${area}.ts`)).href)) as { cases?: GoldenCase[] };
  if (!Array.isArray(mod.cases)) throw new Error(`golden/cases/${area}.ts must export \`cases: GoldenCase[]\``);
  const seen = new Set<string>();
  for (const c of mod.cases) {
    if (!/^[a-z0-9._-]+$/.test(c.name)) throw new Error(`golden ${area}: case name ${JSON.stringify(c.name)} must match [a-z0-9._-]+`);
    if (seen.has(c.name)) throw new Error(`golden ${area}: duplicate case ${c.name}`);
    seen.add(c.name);
  }
  return mod.cases;
}

/** Path of a case's expected file. */
export function expectedPath(area: string, c: Pick<GoldenCase, 'name' | 'kind'>): string {
  return path.join(EXPECTED_DIR, area, `${c.name}.${c.kind}`);
}

function asBytes(v: Uint8Array | string): Uint8Array {
  return typeof v === 'string' ? new Uint8Array(Buffer.from(v, 'utf8')) : v;
}

async function toRaster(c: GoldenCase, bytes: Uint8Array): Promise<Raster> {
  if (c.kind === 'svg') return rasteriseSvg(bytes, c.rasterWidth ?? 512);
  return decodeToRaster(bytes);
}

function checkOutput(c: GoldenCase, out: Uint8Array | string): Uint8Array {
  const bytes = asBytes(out);
  if (c.kind === 'png' && !(bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47)) {
    throw new Error(`golden case ${c.name}: kind 'png' but produce() did not return PNG bytes`);
  }
  if (c.kind === 'svg' && !/<svg[\s>]/.test(Buffer.from(bytes.subarray(0, 4096)).toString('utf8'))) {
    throw new Error(`golden case ${c.name}: kind 'svg' but produce() did not return SVG`);
  }
  return bytes;
}

/** Which limits of `tol` the metrics break (empty when the case passes). */
export function brokenLimits(m: RasterMetrics, tolerance: GoldenTolerance = {}): string[] {
  const t = { ...DEFAULT_TOLERANCE, ...tolerance };
  const out: string[] = [];
  if (m.maxDeltaE > t.maxDeltaE) out.push(`maxDeltaE ${m.maxDeltaE.toFixed(2)} > ${t.maxDeltaE}`);
  if (m.p99DeltaE > t.p99DeltaE) out.push(`p99DeltaE ${m.p99DeltaE.toFixed(2)} > ${t.p99DeltaE}`);
  if (m.meanDeltaE > t.meanDeltaE) out.push(`meanDeltaE ${m.meanDeltaE.toFixed(3)} > ${t.meanDeltaE}`);
  if (m.ssim < t.minSsim) out.push(`ssim ${m.ssim.toFixed(4)} < ${t.minSsim}`);
  if (m.alphaIoU < t.minAlphaIoU) out.push(`alphaIoU ${m.alphaIoU.toFixed(4)} < ${t.minAlphaIoU}`);
  return out;
}

function fmtMetrics(m: RasterMetrics): string {
  return `meanΔE ${m.meanDeltaE.toFixed(3)}, p99ΔE ${m.p99DeltaE.toFixed(2)}, maxΔE ${m.maxDeltaE.toFixed(2)}, SSIM ${m.ssim.toFixed(4)}, alphaIoU ${m.alphaIoU.toFixed(4)}`;
}

async function writeDiff(area: string, name: string, actual: Raster, expected: Raster | null): Promise<string> {
  const dir = path.join(DIFF_DIR, area);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `${name}.actual.png`), await rasterToPng(actual));
  if (expected) {
    writeFileSync(path.join(dir, `${name}.expected.png`), await rasterToPng(expected));
    if (expected.width === actual.width && expected.height === actual.height) writeFileSync(path.join(dir, `${name}.diff.png`), await rasterToPng(diffRaster(actual, expected)));
  }
  return path.relative(process.cwd(), path.join(dir, `${name}.*.png`));
}

/** Produce one case and compare it with its expected file; writes diff images on failure. Never throws on a mismatch. */
export async function checkCase(area: string, c: GoldenCase): Promise<GoldenResult> {
  const actualBytes = checkOutput(c, await c.produce());
  const actual = await toRaster(c, actualBytes);
  const file = expectedPath(area, c);
  const base = { area, name: c.name };
  if (!existsSync(file)) {
    const where = await writeDiff(area, c.name, actual, null);
    return { ...base, ok: false, metrics: null, message: `missing expected file ${path.relative(process.cwd(), file)}: run \`npm run golden:update ${area}\` (actual written to ${where})` };
  }
  const expected = await toRaster(c, new Uint8Array(readFileSync(file)));
  if (expected.width !== actual.width || expected.height !== actual.height) {
    const where = await writeDiff(area, c.name, actual, expected);
    return { ...base, ok: false, metrics: null, message: `size ${actual.width}x${actual.height} differs from expected ${expected.width}x${expected.height} (images in ${where})` };
  }
  const metrics = compareRasters(actual, expected);
  const broken = brokenLimits(metrics, c.tolerance);
  if (broken.length === 0) {
    rmSync(path.join(DIFF_DIR, area, `${c.name}.actual.png`), { force: true });
    rmSync(path.join(DIFF_DIR, area, `${c.name}.expected.png`), { force: true });
    rmSync(path.join(DIFF_DIR, area, `${c.name}.diff.png`), { force: true });
    return { ...base, ok: true, metrics, message: fmtMetrics(metrics) };
  }
  const where = await writeDiff(area, c.name, actual, expected);
  return { ...base, ok: false, metrics, message: `golden ${area}/${c.name} out of tolerance: ${broken.join('; ')} (${fmtMetrics(metrics)}); images in ${where}` };
}

/** Produce a case and write its expected file. Refuses outputs larger than 512 px or 200 KB. */
export async function updateCase(area: string, c: GoldenCase): Promise<{ file: string; bytes: number; width: number; height: number }> {
  const bytes = checkOutput(c, await c.produce());
  const r = await toRaster(c, bytes);
  if (c.kind === 'png' && (r.width > MAX_EXPECTED_SIDE || r.height > MAX_EXPECTED_SIDE)) {
    throw new Error(`golden ${area}/${c.name}: ${r.width}x${r.height} is larger than ${MAX_EXPECTED_SIDE} px; produce a smaller image`);
  }
  if (bytes.length > MAX_EXPECTED_BYTES) throw new Error(`golden ${area}/${c.name}: ${bytes.length} bytes is more than ${MAX_EXPECTED_BYTES}; produce a smaller file`);
  const file = expectedPath(area, c);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, bytes);
  return { file, bytes: bytes.length, width: r.width, height: r.height };
}
