// Global setup: render once, before any test starts, the neutral garment blanks the suite composites on
// (every own style and view at 512 px; the classic tee's front at 1024 and 2048 for the 800-2000 px mockups).
// A blank is rendered at most once a machine and kept in the shared disk cache all test processes read
// (TEST_GARMENT_CACHE_DIR: the engine's default, and INKPREP_GARMENT_CACHE_DIR of the servers and CLIs the
// tests start, set in vitest.config.ts).
// Cold, the 2048 px blank alone takes ~6 s of CPU: inside a test, on a busy 2-core machine, that was most of
// the 60 s the "defaults: output_size 2000" test hit; here it is paid once, outside every test's timeout.
// The renders are the engine's own code (garments/cache.ts getNeutral, which also names its files by the
// render version); the tests still prove what they did, only against a blank rendered before they started.
// A marker named by a hash of engine/src/garments skips loading the engine here when nothing changed.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_GARMENT_CACHE_DIR } from './garments-dir.js';

const g = globalThis as typeof globalThis & { inkprepGarmentsWarm?: boolean };

function sourcesHash(): string {
  const dir = fileURLToPath(new URL('../engine/src/garments/', import.meta.url));
  const h = createHash('sha256');
  for (const f of readdirSync(dir).sort()) h.update(f).update(readFileSync(path.join(dir, f)));
  return h.digest('hex').slice(0, 16);
}

export async function setup(): Promise<void> {
  // Both vitest projects run global setups in the one main process: once is enough.
  if (g.inkprepGarmentsWarm) return;
  g.inkprepGarmentsWarm = true;
  const marker = path.join(TEST_GARMENT_CACHE_DIR, `warm-${sourcesHash()}`);
  if (existsSync(marker)) return;
  const t0 = Date.now();
  const { OWN_STYLES } = await import('@inkprep/engine');
  const { getNeutral } = await import('@inkprep/engine/internals');
  const classic = OWN_STYLES.find((s) => s.id === 'classic-tee')!;
  for (const style of OWN_STYLES) for (const view of ['front', 'back'] as const) await getNeutral(style, view, 512, TEST_GARMENT_CACHE_DIR);
  for (const size of [1024, 2048]) await getNeutral(classic, 'front', size, TEST_GARMENT_CACHE_DIR);
  mkdirSync(TEST_GARMENT_CACHE_DIR, { recursive: true });
  writeFileSync(marker, new Date().toISOString() + '\n');
  console.log(`garment blanks for the tests ready in ${((Date.now() - t0) / 1000).toFixed(1)} s (${TEST_GARMENT_CACHE_DIR})`);
}
