// Real readers for the vectorize output formats, shared by the engine, HTTP and CLI tests: poppler
// (pdftocairo, transparent background) renders PDF, Ghostscript (pngalpha, EPSCrop) renders EPS, dxf-parser
// reads DXF. The Debian packages poppler-utils and ghostscript provide the tools (.ci/run installs them);
// a test that needs one and finds it missing skips with the reason printed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import * as dxfParser from 'dxf-parser';
import type { Raster } from '@inkprep/engine';
import { decodeToRaster } from '../../../../golden/lib/metrics.js';

function has(cmd: string, args: string[]): boolean {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  return r.error === undefined && r.status === 0;
}

/** Whether poppler's pdftocairo/pdfinfo and Ghostscript run here; `reason` says what is missing. */
export const READERS = (() => {
  const poppler = has('pdftocairo', ['-v']) && has('pdfinfo', ['-v']);
  const gs = has('gs', ['--version']);
  const missing = [poppler ? '' : 'pdftocairo/pdfinfo (Debian poppler-utils)', gs ? '' : 'gs (Debian ghostscript)'].filter(Boolean);
  const reason = missing.length ? `skipped: ${missing.join(' and ')} not installed (.ci/run installs them)` : '';
  if (reason) console.warn(`vectorize format render tests ${reason}`);
  return { poppler, gs, reason };
})();

function inTemp<T>(fn: (dir: string) => T): T {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-fmt-'));
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function run(cmd: string, args: string[]): { stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.error || r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.error?.message ?? r.stderr}`);
  return { stdout: r.stdout, stderr: r.stderr };
}

/** Render page 1 of a PDF at `dpi` with a transparent background (poppler's cairo backend). */
export async function renderPdf(pdf: Uint8Array, dpi: number): Promise<Raster> {
  const png = inTemp((dir) => {
    writeFileSync(path.join(dir, 'in.pdf'), pdf);
    run('pdftocairo', ['-png', '-transp', '-singlefile', '-r', String(dpi), path.join(dir, 'in.pdf'), path.join(dir, 'out')]);
    return readFileSync(path.join(dir, 'out.png'));
  });
  return decodeToRaster(png);
}

/** `pdfinfo` of a PDF: its text report and what it complained about on stderr (empty for a clean file). */
export function pdfInfo(pdf: Uint8Array): { info: string; complaints: string } {
  return inTemp((dir) => {
    writeFileSync(path.join(dir, 'in.pdf'), pdf);
    const r = run('pdfinfo', [path.join(dir, 'in.pdf')]);
    return { info: r.stdout, complaints: r.stderr.trim() };
  });
}

/**
 * Render an EPS at `dpi`, cropped to its bounding box, with alpha (Ghostscript pngalpha, 4-bit anti-aliasing).
 * Fill adjust is set to 0: Ghostscript's default (0.25 px) grows every fill, so edges would sit a quarter
 * pixel outside where resvg and poppler put them (measured: painted area +1.1 % on lettering at 144 DPI).
 */
export async function renderEps(eps: Uint8Array | string, dpi: number): Promise<{ raster: Raster; complaints: string }> {
  const { png, complaints } = inTemp((dir) => {
    writeFileSync(path.join(dir, 'in.eps'), eps);
    const r = run('gs', ['-q', '-dSAFER', '-dBATCH', '-dNOPAUSE', '-sDEVICE=pngalpha', '-dEPSCrop', `-r${dpi}`, '-dGraphicsAlphaBits=4', `-sOutputFile=${path.join(dir, 'out.png')}`, '-c', '0 0 .setfilladjust2', '-f', path.join(dir, 'in.eps')]);
    return { png: readFileSync(path.join(dir, 'out.png')), complaints: (r.stdout + r.stderr).trim() };
  });
  return { raster: await decodeToRaster(png), complaints };
}

/** The decompressed content stream of the single page of one of our PDFs (object 4, FlateDecode). */
export function pdfContent(pdf: Uint8Array): string {
  const buf = Buffer.from(pdf);
  const start = buf.indexOf('stream\n') + 'stream\n'.length;
  const end = buf.indexOf('\nendstream', start);
  return inflateSync(buf.subarray(start, end)).toString('latin1');
}

/** A parsed DXF drawing: its header, layer names, and closed polylines with their vertices. */
export interface DxfDrawing {
  header: Record<string, unknown>;
  layers: string[];
  /** Closed outlines: POLYLINE entities, and CIRCLE entities as 256-gons (`circle: true`). */
  polylines: { layer: string; closed: boolean; circle: boolean; points: { x: number; y: number }[] }[];
}

// dxf-parser is CommonJS with an ESM build: Node's loader exposes the class as a named export, Vite's as default.
type ParserClass = typeof dxfParser.DxfParser;
const Parser: ParserClass = (dxfParser as { DxfParser?: ParserClass }).DxfParser ?? (dxfParser as unknown as { default: ParserClass }).default;

/** Parse DXF text with dxf-parser (a maintained third-party reader, not our writer's logic). */
export function parseDxf(text: string): DxfDrawing {
  const d = new Parser().parseSync(text);
  if (!d) throw new Error('dxf-parser returned nothing');
  const layers = Object.keys((d.tables as { layer?: { layers?: Record<string, unknown> } }).layer?.layers ?? {});
  const polylines = d.entities.map((e) => {
    const p = e as unknown as { type: string; layer: string; shape?: boolean; vertices?: { x: number; y: number }[]; center?: { x: number; y: number }; radius?: number };
    if (p.type === 'CIRCLE' && p.center && p.radius !== undefined) {
      // a circle as a closed 256-gon (for counts, bounds and drawing back)
      const { center: c, radius: r } = p;
      return { layer: p.layer, closed: true, circle: true, points: Array.from({ length: 256 }, (_, i) => ({ x: c.x + r * Math.cos((i * Math.PI) / 128), y: c.y + r * Math.sin((i * Math.PI) / 128) })) };
    }
    if (p.type !== 'POLYLINE' && p.type !== 'LWPOLYLINE') throw new Error(`unexpected DXF entity ${p.type}`);
    return { layer: p.layer, closed: p.shape === true, circle: false, points: (p.vertices ?? []).map((v) => ({ x: v.x, y: v.y })) };
  });
  return { header: d.header as Record<string, unknown>, layers, polylines };
}

/**
 * Closed outlines per solid fill in one of our SVGs, keyed by upper-case RRGGBB: movetos of each <path>, and one
 * per <circle>, <ellipse> or <rect> (recognised primitives).
 */
export function svgOutlinesByColour(svg: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of svg.matchAll(/<(path|circle|ellipse|rect) fill="#([0-9a-f]{3,6})"(?: d="([^"]*)")?/g)) {
    let hex = m[2]!;
    if (hex.length === 3) hex = [...hex].map((c) => c + c).join('');
    hex = hex.toUpperCase();
    const n = m[1] === 'path' ? (m[3]!.match(/[Mm]/g) ?? []).length : 1;
    out.set(hex, (out.get(hex) ?? 0) + n);
  }
  return out;
}

/** All closed outlines of one of our SVGs (see svgOutlinesByColour; gradient fills included). */
export function svgOutlineCount(svg: string): number {
  let n = 0;
  for (const m of svg.matchAll(/<(path|circle|ellipse|rect) fill="[^"]*"(?: d="([^"]*)")?/g)) n += m[1] === 'path' ? (m[2]!.match(/[Mm]/g) ?? []).length : 1;
  return n;
}
