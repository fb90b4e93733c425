// Budget arithmetic (spec 2.4 / 4.5): pre-shrink to the budget up to 4x its pixels, 413 beyond.
import { describe, expect, it } from 'vitest';
import { InkprepError } from '@inkprep/engine';
import { maxPixelsFor, planSize, SHRINK_ALLOWANCE } from '@inkprep/engine/internals';

const B = { budget: 10_000, budget4x: 2_500 };

describe('planSize', () => {
  it('runs at the input size when it fits the budget', () => {
    const p = planSize(50, 50, 4, B);
    expect(p).toEqual({ preShrunk: false, from: { width: 50, height: 50 }, to: { width: 50, height: 50 }, output: { width: 200, height: 200 } });
  });

  it('shrinks input over the budget to fit it, keeping the aspect ratio', () => {
    const p = planSize(100, 50, 4, B); // 5000 px > 2500
    expect(p.preShrunk).toBe(true);
    expect(p.from).toEqual({ width: 100, height: 50 });
    expect(p.to.width * p.to.height).toBeLessThanOrEqual(2500);
    expect(p.to).toEqual({ width: 70, height: 35 });
    expect(p.output).toEqual({ width: 280, height: 140 });
  });

  it('uses the 2x budget for scale 2', () => {
    expect(planSize(100, 100, 2, B).preShrunk).toBe(false);
    const p = planSize(200, 100, 2, B);
    expect(p.to).toEqual({ width: 141, height: 70 });
    expect(p.output).toEqual({ width: 282, height: 140 });
  });

  it('accepts exactly 4x the budget and refuses one pixel more with 413 maxPixels/pixels', () => {
    expect(SHRINK_ALLOWANCE).toBe(4);
    expect(maxPixelsFor(4, B)).toBe(10_000);
    expect(maxPixelsFor(2, B)).toBe(40_000);
    expect(planSize(100, 100, 4, B).to).toEqual({ width: 50, height: 50 });
    let err: unknown;
    try {
      planSize(10_001, 1, 4, B);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InkprepError);
    expect((err as InkprepError).code).toBe('image_too_large');
    expect((err as InkprepError).details).toEqual({ maxPixels: 10_000, pixels: 10_001 });
  });

  it('never shrinks a side to zero', () => {
    const p = planSize(9000, 1, 4, B);
    expect(p.to.height).toBe(1);
    expect(p.to.width).toBeLessThanOrEqual(2500);
  });
});
