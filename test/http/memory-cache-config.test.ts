// INKPREP_MEMORY_CACHE_MB: the service's engine cache budget reaches createEngine (engineOptions), defaults to
// the engine's 256 MB, and a bad value stops the start naming the variable.
import { describe, expect, it } from 'vitest';
import { engineConfigFromEnv, engineOptions } from '../../adapter-http/src/config.js';

describe('INKPREP_MEMORY_CACHE_MB', () => {
  it('is the engine option memoryCacheMb, default 256', () => {
    expect(engineOptions(engineConfigFromEnv({})).memoryCacheMb).toBe(256);
    expect(engineOptions(engineConfigFromEnv({ INKPREP_MEMORY_CACHE_MB: '96' })).memoryCacheMb).toBe(96);
    expect(engineOptions(engineConfigFromEnv({ INKPREP_MEMORY_CACHE_MB: '0' })).memoryCacheMb).toBe(0);
  });

  it('refuses anything but an integer from 0 to 1,048,576, naming the variable', () => {
    for (const bad of ['-1', '1.5', 'lots', '256MB', '1048577']) {
      expect(() => engineConfigFromEnv({ INKPREP_MEMORY_CACHE_MB: bad })).toThrow(/INKPREP_MEMORY_CACHE_MB/);
    }
  });
});
