// The one disk cache of rendered garment blanks every test process shares (warmed by test/garments-global.ts).
import os from 'node:os';
import path from 'node:path';

export const TEST_GARMENT_CACHE_DIR = path.join(os.tmpdir(), 'inkprep-test-garment-cache');
