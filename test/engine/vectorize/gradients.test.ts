import { describe, expect, it } from 'vitest';
import { prepareImage } from '@inkprep/engine/internals';
import { quantize } from '@inkprep/engine/internals';
import { mergeShadedBands } from '../../../engine/src/vectorize/gradients/merge.js';
import { fitGradientFills } from '@inkprep/engine/internals';
import { art, usedLabels } from './helpers-colour.js';

const RAMP = `<defs><linearGradient id="g" x1="0" x2="1"><stop offset="0" stop-color="#203060"/><stop offset="1" stop-color="#e0a030"/></linearGradient></defs><rect x="4" y="4" width="192" height="72" fill="url(#g)"/>`;
const FLAT = `<rect width="200" height="80" fill="#ffffff"/><rect x="20" y="10" width="80" height="60" fill="#e63946"/><rect x="100" y="10" width="80" height="60" fill="#d62836"/>`;

describe('gradients', () => {
  it('merges the bands of one linear ramp into a single region with a linear gradient fill', async () => {
    const prep = prepareImage(await art(200, 80, RAMP), true);
    const q = quantize(prep, 'auto');
    const before = usedLabels(q.map).size;
    expect(before).toBeGreaterThan(3);
    expect(mergeShadedBands(q.map, q.lab)).toBeGreaterThan(0);
    const used = [...usedLabels(q.map)];
    expect(used.length).toBeLessThan(before);
    const fills = fitGradientFills(q.map, prep.rgba);
    const kinds = used.map((l) => fills[l]!.kind);
    expect(kinds).toContain('linear');
    const g = fills[used.find((l) => fills[l]!.kind === 'linear')!]!;
    if (g.kind !== 'linear') throw new Error('expected a linear fill');
    // The ramp runs left to right.
    expect(Math.abs(g.x2 - g.x1)).toBeGreaterThan(5 * Math.abs(g.y2 - g.y1));
    expect(g.stops.length).toBeGreaterThanOrEqual(2);
  });

  it('fits a radial gradient to radially shaded art', async () => {
    const disc = `<defs><radialGradient id="r" cx="0.5" cy="0.5" r="0.5"><stop offset="0" stop-color="#fff3b0"/><stop offset="1" stop-color="#d04010"/></radialGradient></defs><circle cx="80" cy="80" r="70" fill="url(#r)"/>`;
    const prep = prepareImage(await art(160, 160, disc), true);
    const q = quantize(prep, 1);
    const fill = fitGradientFills(q.map, prep.rgba)[0]!;
    expect(fill.kind).toBe('radial');
    if (fill.kind !== 'radial') throw new Error('expected a radial fill');
    expect(Math.abs(fill.cx - 80)).toBeLessThan(4);
    expect(Math.abs(fill.cy - 80)).toBeLessThan(4);
    expect(fill.r).toBeGreaterThan(60);
    expect(fill.r).toBeLessThan(80);
  });

  it('never merges or shades flat inks, even close ones', async () => {
    const prep = prepareImage(await art(200, 80, FLAT), true);
    const q = quantize(prep, 'auto');
    expect(usedLabels(q.map).size).toBe(3);
    expect(mergeShadedBands(q.map, q.lab)).toBe(0);
    expect(fitGradientFills(q.map, prep.rgba).every((f) => f.kind === 'solid')).toBe(true);
  });
});
