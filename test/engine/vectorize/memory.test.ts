// Vectorize's memory stays bounded per megapixel on large flat art (README "Memory per megapixel"): a fresh
// process vectorizes a 9 MP flat PNG and reports its peak RSS (getrusage high-water mark). Before the
// per-colour Lab table, 1-byte blend codes, 16-bit ranks and in-place prepare it grew about 34 MB per MP;
// now about 15. The bound (24) fails on the old layout with room for allocator noise.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';

const CHILD = fileURLToPath(new URL('../../../bench/lib/memory-child.ts', import.meta.url));

describe('vectorize memory', () => {
  it('peaks under 24 MB per megapixel above the idle process on 9 MP flat art', async () => {
    const side = 3000;
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${side}" height="${side}"><rect width="100%" height="100%" fill="#fff"/>`
      + `<circle cx="1500" cy="1500" r="750" fill="#d02030"/><rect x="300" y="300" width="600" height="375" fill="#203080"/></svg>`;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-mem-'));
    try {
      const file = path.join(dir, 'flat.png');
      writeFileSync(file, await sharp(Buffer.from(svg)).png().toBuffer());
      const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', CHILD, 'vectorize', file], { encoding: 'utf8', timeout: 120_000 });
      expect(r.status, r.stderr).toBe(0);
      const m = JSON.parse(r.stdout.trim().split('\n').pop()!) as { peakMB: number; idleMB: number };
      const perMp = (m.peakMB - m.idleMB) / 9;
      expect(perMp).toBeGreaterThan(4); // the decoded pixels alone are 4 MB per MP: the reading is real
      expect(perMp).toBeLessThan(24);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
