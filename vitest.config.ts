// Tests import the packages from source; the Piscina worker itself runs from engine/dist (built by pretest).
import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  resolve: {
    alias: {
      '@inkprep/engine': fileURLToPath(new URL('./engine/src/index.ts', import.meta.url)),
      '@inkprep/http': fileURLToPath(new URL('./adapter-http/src/index.ts', import.meta.url)),
    },
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
  },
});
