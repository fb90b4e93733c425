// The one disk cache of rendered garment blanks every test process shares (warmed by test/garments-global.ts).
// It is the engine's own default (the engine reads no environment), so engines and blank functions the tests
// create in-process use it as they are; CLI and server child processes get it as INKPREP_GARMENT_CACHE_DIR.
import { defaultGarmentCacheDir } from '../engine/src/garments/cache.js';

export const TEST_GARMENT_CACHE_DIR = defaultGarmentCacheDir();
