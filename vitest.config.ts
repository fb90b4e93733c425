// Tests import the packages from source; the Piscina worker itself runs from engine/dist (built by pretest).
// Two projects: every test on the default HTTP transport (INKPREP_HTTP, else auto), and test/http once more
// on the other transport, so the route table is proven on uWebSockets.js and on node:http in one run.
// auto is uWS only where its @btc-vision build loads (glibc >= 2.38); elsewhere it is node:http, and the
// second run is test/http with INKPREP_HTTP=uws on whichever build loads (Node 20 on Debian 12: the
// trufflesuite one, which auto never picks). Where no uWS build loads at all (Node 22/24 on glibc below
// 2.38) the second run is skipped.
import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';
import { loadUws } from './adapter-http/src/transport/uws-load.js';
import { TEST_GARMENT_CACHE_DIR } from './test/garments-dir.js';

const chosen = (process.env.INKPREP_HTTP ?? '').trim() || 'auto';
const uwsLoads = loadUws('uws').ok;
const defaultKind = chosen === 'auto' ? (loadUws('auto').ok ? 'uws' : 'node') : chosen;
const other = defaultKind === 'uws' ? 'node' : uwsLoads ? 'uws' : null;

// remove-bg: tests never fetch the segmentation model nor pick up one a developer cached under ./data/models
// (the model tests find it themselves and pass its path; see test/engine/matte/isnet.test.ts).
const MODEL_ENV = { INKPREP_FETCH_MODEL: '0', INKPREP_MODEL_DIR: fileURLToPath(new URL('./test/.no-models', import.meta.url)) };
// mockup: every test process (and the servers and CLIs they start) reads the one blank cache that
// test/garments-global.ts warms before the first test (not ./data of the checkout, not one folder per file).
const TEST_ENV = { ...MODEL_ENV, INKPREP_GARMENT_CACHE_DIR: TEST_GARMENT_CACHE_DIR };

export default defineConfig({
  resolve: {
    // Exact matches: a string key would also rewrite '@inkprep/engine/internals' to '.../index.ts/internals'.
    alias: [
      { find: /^@inkprep\/engine$/, replacement: fileURLToPath(new URL('./engine/src/index.ts', import.meta.url)) },
      { find: /^@inkprep\/engine\/internals$/, replacement: fileURLToPath(new URL('./engine/src/internals.ts', import.meta.url)) },
      { find: /^@inkprep\/http$/, replacement: fileURLToPath(new URL('./adapter-http/src/index.ts', import.meta.url)) },
    ],
  },
  test: {
    // Generous on purpose: the suite must pass on a 2-core machine that is busy (CI beside other jobs; two
    // CPU-bound loops beside it), where a test gets a quarter of a core or less: the heaviest tests take
    // ~5 s alone and up to ~10x that under such load. A timeout here only catches a hang; what a test
    // waits for (a server start, a reply, a child's exit) has its own deadline with a message naming it.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
    // Every response of the service a test receives is checked against the OpenAPI document (issue 18).
    setupFiles: ['test/openapi-setup.ts'],
    globalSetup: ['test/openapi-global.ts', 'test/garments-global.ts'],
    projects: [
      { extends: true, test: { name: defaultKind, include: ['test/**/*.test.ts'], env: { ...TEST_ENV, INKPREP_HTTP: defaultKind } } },
      ...(other ? [{ extends: true as const, test: { name: `http-${other}`, include: ['test/http/**/*.test.ts'], env: { ...TEST_ENV, INKPREP_HTTP: other } } }] : []),
    ],
  },
});
