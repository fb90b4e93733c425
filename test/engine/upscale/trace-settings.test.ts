// The upscaler's vector path states its vectorize settings itself (it may not call up into the op layer);
// they must stay what the op's resolver makes of the same fields, or the vector path would drift from vectorize.
import { describe, expect, it } from 'vitest';
import { TRACE_OPTIONS, TRACE_SETTINGS } from '../../../engine/src/upscale/vector.js';
import { resolveVectorize } from '@inkprep/engine/internals';

describe('upscale vector path settings', () => {
  it('equal resolveVectorize(TRACE_OPTIONS)', () => {
    expect(TRACE_SETTINGS).toEqual(resolveVectorize(TRACE_OPTIONS));
  });
});
