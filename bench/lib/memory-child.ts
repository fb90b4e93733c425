// One memory measurement in a fresh process (bench/suites/memory.ts): run one engine op in-thread on a PNG file,
// print {peakMB, idleMB, cpuS, wallS} as one JSON line. Peak RSS comes from getrusage (the kernel's high-water
// mark), so nothing between samples is missed. `decode` is the floor every op pays: the decoded RGBA pixels.
import { readFileSync } from 'node:fs';
import { createEngine } from '@inkprep/engine';
import { decodeImage } from '@inkprep/engine/internals';

const [op, file] = [process.argv[2]!, process.argv[3]!];
const png = new Uint8Array(readFileSync(file));
const engine = createEngine({ threads: 0, maxPixels: 100_000_000 });
const opts = { maxPixels: 100_000_000 };
// Let the fixture's garbage go before the idle reading.
(globalThis as { gc?: () => void }).gc?.();
const idleMB = process.memoryUsage().rss / 1e6;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
try {
switch (op) {
  case 'decode': await decodeImage(png, opts); break;
  case 'scan': await engine.scan(png, {}, opts); break;
  case 'fix': await engine.fix(png, { fix_trim: true, fix_despeckle: true, fix_alpha_threshold: true }, opts); break;
  case 'underbase': await engine.underbase(png, { garmentColor: '#1b1b1d', printWidthInches: 12 }, opts); break;
  case 'remove-bg': await engine.removeBg(png, {}, opts); break;
  case 'vectorize': await engine.vectorize(png, {}, opts); break;
  default: throw new Error(`memory-child: unknown op ${op}`);
}
} catch (err) {
  // An op's own pixel limit (remove-bg: 25 MP) is an answer, not a crash.
  if ((err as { code?: string }).code !== 'image_too_large') throw err;
  console.log(JSON.stringify({ skipped: (err as Error).message }));
  process.exit(0);
}
const wallS = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
await engine.close();
console.log(JSON.stringify({ peakMB: process.resourceUsage().maxRSS / 1024, idleMB, cpuS: (cpu.user + cpu.system) / 1e6, wallS }));
