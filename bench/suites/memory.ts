// Bench: peak memory per megapixel of each op on large flat art (the common big upload: a logo exported at
// print size). Every measurement runs in a fresh process (bench/lib/memory-child.ts) on the same PNG; the
// table gives peak RSS, RSS over the process's idle size per megapixel, CPU seconds and wall seconds, and
// `x decode` = that op's RSS growth / the growth of decoding alone (the pixels every op must hold), same run.
// Full mode includes 100 MP, the engine's pixel limit (the vectorize target: peak RSS under 2 GB).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import type { BenchContext, Row } from '../lib/harness.js';

const CHILD = fileURLToPath(new URL('../lib/memory-child.ts', import.meta.url));
const OPS = ['decode', 'scan', 'fix', 'underbase', 'remove-bg', 'vectorize'] as const;

/** Flat logo-like art: white paper, a red disc, a blue bar and black lettering (anti-aliased edges). */
async function flatArt(side: number): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${side}" height="${side}"><rect width="100%" height="100%" fill="#ffffff"/>`
    + `<circle cx="${side / 2}" cy="${side / 2}" r="${side / 4}" fill="#d02030"/><rect x="${side / 10}" y="${side / 10}" width="${side / 5}" height="${side / 8}" fill="#203080"/>`
    + `<text x="${side / 8}" y="${side * 0.85}" font-family="sans-serif" font-size="${side / 10}" fill="#111111">INK</text></svg>`;
  return sharp(Buffer.from(svg), { limitInputPixels: false }).png().toBuffer();
}

interface Measure { peakMB: number; idleMB: number; cpuS: number; wallS: number; skipped?: string }

function measure(op: string, file: string): Promise<Measure> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', CHILD, op, file], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !line.startsWith('{')) reject(new Error(`memory child ${op} exited ${code}: ${out}`));
      else resolve(JSON.parse(line) as Measure);
    });
  });
}

export default async function memorySuite(ctx: BenchContext): Promise<void> {
  const sides = ctx.short ? [2000] : [4000, 10000];
  const dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-bench-mem-'));
  try {
    for (const side of sides) {
      const file = path.join(dir, `flat-${side}.png`);
      writeFileSync(file, await flatArt(side));
      const mp = (side * side) / 1e6;
      const rows: Row[] = [];
      let decodeGrowth = 0;
      for (const op of OPS) {
        const m = await measure(op, file);
        if (m.skipped) {
          rows.push({ op, MP: mp, note: `over the op's pixel limit: ${m.skipped}` });
          continue;
        }
        const growth = m.peakMB - m.idleMB;
        if (op === 'decode') decodeGrowth = growth;
        rows.push({ op, MP: mp, 'peak RSS MB': Math.round(m.peakMB), 'MB per MP': growth / mp, 'x decode': decodeGrowth > 0 ? growth / decodeGrowth : null, 'cpu s': m.cpuS, 'wall s': m.wallS });
      }
      ctx.table(`peak memory, flat art ${side}x${side} (${mp} MP), one op per fresh process, in-thread`, rows);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
