import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { createEngine, InkprepError, textOptions } from '@inkprep/engine';
import { DETAIL_PARAMS, resolveVectorize, vectorizeRaster } from '@inkprep/engine/internals';
import { compareRasters } from '../../../golden/lib/metrics.js';
import { renderAt } from '../../../bench/lib/vectorize-metrics.js';
import { art } from './helpers-colour.js';

const LOGO = `<circle cx="60" cy="60" r="45" fill="#e63946"/><circle cx="60" cy="60" r="20" fill="#ffffff"/>
  <rect x="120" y="20" width="60" height="80" rx="10" fill="#264653"/>`;

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(InkprepError);
    expect((err as InkprepError).code).toBe('invalid_option');
    return (err as InkprepError).details.field as string;
  }
  return undefined;
}

function fillsOf(svg: string): string[] {
  return [...new Set([...svg.matchAll(/fill="(#[0-9a-f]{3,6})"/g)].map((m) => m[1]!))];
}

describe('vectorize options', () => {
  it('defaults', () => {
    const o = resolveVectorize(undefined);
    expect(o).toMatchObject({ colors: 'auto', detail: 'balanced', shapeStyle: 'stacked', speckSize: 4, edgeCleanup: true, smoothBands: true, gradients: false, printWidthInches: null, outputFormat: 'svg', dxfUnits: 'in' });
    expect(o.trace).toMatchObject({ ...DETAIL_PARAMS.balanced, shapeStyle: 'stacked', smooth: true });
    expect(Object.isFrozen(o)).toBe(true);
  });

  it('accepts text values as HTTP sends them (through textOptions)', () => {
    const o = resolveVectorize(textOptions({ colors: '8', detail: 'precise', shape_style: 'cutout', speck_size: '0', edge_cleanup: 'false', smooth_bands: 'false', gradients: 'true', print_width_inches: '10.5' }));
    expect(o).toMatchObject({ colors: 8, detail: 'precise', shapeStyle: 'cutout', speckSize: 0, edgeCleanup: false, gradients: true, printWidthInches: 10.5 });
    // smooth_bands=false is honoured only with colors=unlimited.
    expect(o.trace.smooth).toBe(true);
    expect(resolveVectorize(textOptions({ colors: 'unlimited', smooth_bands: 'false' })).trace.smooth).toBe(false);
    expect(resolveVectorize({ colors: 1 }).colors).toBe(1);
    expect(resolveVectorize(textOptions({ colors: '20' })).colors).toBe(20);
  });

  it('rejects bad values naming the field', () => {
    expect(fieldOf(() => resolveVectorize(textOptions({ colors: '0' })))).toBe('colors');
    expect(fieldOf(() => resolveVectorize({ colors: 21 }))).toBe('colors');
    expect(fieldOf(() => resolveVectorize(textOptions({ colors: '2.5' })))).toBe('colors');
    expect(fieldOf(() => resolveVectorize(textOptions({ colors: 'many' })))).toBe('colors');
    expect(fieldOf(() => resolveVectorize(textOptions({ detail: 'fine' })))).toBe('detail');
    expect(fieldOf(() => resolveVectorize(textOptions({ shape_style: 'layered' })))).toBe('shape_style');
    expect(fieldOf(() => resolveVectorize(textOptions({ speck_size: '17' })))).toBe('speck_size');
    expect(fieldOf(() => resolveVectorize({ speck_size: -1 }))).toBe('speck_size');
    expect(fieldOf(() => resolveVectorize(textOptions({ edge_cleanup: 'yes' })))).toBe('edge_cleanup');
    expect(fieldOf(() => resolveVectorize(textOptions({ smooth_bands: '1' })))).toBe('smooth_bands');
    expect(fieldOf(() => resolveVectorize(textOptions({ gradients: 'maybe' })))).toBe('gradients');
    expect(fieldOf(() => resolveVectorize(textOptions({ print_width_inches: '0' })))).toBe('print_width_inches');
    expect(fieldOf(() => resolveVectorize(textOptions({ print_width_inches: 'wide' })))).toBe('print_width_inches');
    expect(fieldOf(() => resolveVectorize(textOptions({ output_format: 'png' })))).toBe('output_format');
    expect(fieldOf(() => resolveVectorize({ output_format: 'PDF' } as never))).toBe('output_format');
    expect(fieldOf(() => resolveVectorize(textOptions({ dxf_units: 'ft' })))).toBe('dxf_units');
    expect(resolveVectorize(textOptions({ output_format: 'dxf', dxf_units: 'mm' }))).toMatchObject({ outputFormat: 'dxf', dxfUnits: 'mm' });
  });

  it('typed options take no text forms: a JavaScript caller sending text gets invalid_option', () => {
    expect(fieldOf(() => resolveVectorize({ colors: '8' } as never))).toBe('colors');
    expect(fieldOf(() => resolveVectorize({ gradients: 'true' } as never))).toBe('gradients');
    expect(fieldOf(() => resolveVectorize({ speck_size: '2' } as never))).toBe('speck_size');
    expect(fieldOf(() => resolveVectorize({ detail: '' } as never))).toBe('detail');
    expect(fieldOf(() => resolveVectorize('colors=8' as never))).toBe('options');
    expect(resolveVectorize({ colors: 8, gradients: true, speck_size: 2, detail: 'precise' })).toMatchObject({ colors: 8, gradients: true, speckSize: 2, detail: 'precise' });
  });
});

describe('vectorize pipeline', () => {
  it('paints only palette colours, reports colours used, and keeps transparency empty', async () => {
    const r = await art(200, 120, LOGO);
    const res = vectorizeRaster(r, resolveVectorize({}));
    const fills = fillsOf(res.svg);
    const hex = fills.map((f) => (f.length === 4 ? '#' + [...f.slice(1)].map((c) => c + c).join('') : f)).sort();
    expect(hex).toEqual(['#264653', '#e63946', '#ffffff']);
    expect(res.colorsUsed).toBe(3);
    expect(res.paths).toBeGreaterThanOrEqual(3);
    expect(res).toMatchObject({ width: 200, height: 120 });
    const back = await renderAt(res.svg, 200, 120);
    const m = compareRasters(back, r);
    expect(m.backgroundCover).toBeLessThan(0.001);
    expect(m.alphaIoU).toBeGreaterThan(0.98);
    expect(m.meanDeltaEOpaque).toBeLessThan(3);
  });

  it('is deterministic', async () => {
    const r = await art(200, 120, LOGO);
    expect(vectorizeRaster(r, resolveVectorize({})).svg).toBe(vectorizeRaster(r, resolveVectorize({})).svg);
  });

  it('colors=1 paints one colour', async () => {
    const res = vectorizeRaster(await art(200, 120, LOGO), resolveVectorize({ colors: 1 }));
    expect(fillsOf(res.svg).length).toBe(1);
    expect(res.colorsUsed).toBe(1);
  });

  it('print_width_inches writes a physical size and keeps the viewBox in pixels', async () => {
    const res = vectorizeRaster(await art(200, 120, LOGO), resolveVectorize({ print_width_inches: 10 }));
    expect(res.svg).toContain('viewBox="0 0 200 120"');
    expect(res.svg).toMatch(/width="10in"/);
    expect(res.svg).toMatch(/height="6in"/);
  });

  it('gradients=true fits a gradient to shaded art but never to flat art', async () => {
    const shaded = await art(200, 100, `<defs><linearGradient id="g" x1="0" x2="1"><stop offset="0" stop-color="#102040"/><stop offset="1" stop-color="#f0c020"/></linearGradient></defs><rect x="10" y="10" width="180" height="80" fill="url(#g)"/>`);
    const g = vectorizeRaster(shaded, resolveVectorize({ gradients: true, colors: 4 }));
    expect(g.svg).toContain('linearGradient');
    const plain = vectorizeRaster(shaded, resolveVectorize({ colors: 4 }));
    expect(plain.svg).not.toContain('Gradient');
    const flat = vectorizeRaster(await art(200, 120, LOGO), resolveVectorize({ gradients: true }));
    expect(flat.svg).not.toContain('Gradient');
    // The gradient version is closer to the art.
    const mg = compareRasters(await renderAt(g.svg, 200, 100), shaded);
    const mp = compareRasters(await renderAt(plain.svg, 200, 100), shaded);
    expect(mg.meanDeltaEOpaque).toBeLessThan(mp.meanDeltaEOpaque);
  });

  it('colors=unlimited keeps many bands; smooth_bands=false keeps their pixel staircase', async () => {
    const r = await art(120, 60, `<defs><radialGradient id="g"><stop offset="0" stop-color="#fff"/><stop offset="1" stop-color="#a03"/></radialGradient></defs><circle cx="60" cy="30" r="28" fill="url(#g)"/>`);
    const smooth = vectorizeRaster(r, resolveVectorize({ colors: 'unlimited' }));
    const stairs = vectorizeRaster(r, resolveVectorize({ colors: 'unlimited', smooth_bands: false }));
    expect(smooth.colorsUsed).toBeGreaterThan(4);
    const data = (svg: string): string[] => [...svg.matchAll(/ d="([^"]*)"/g)].map((m) => m[1]!);
    expect(data(smooth.svg).some((d) => /[cCsS]/.test(d))).toBe(true);
    for (const d of data(stairs.svg)) expect(d).toMatch(/^[MmHhVvLlZz0-9.\s,-]+$/);
  });

  it('runs as engine.vectorize on encoded bytes', async () => {
    const r = await art(200, 120, LOGO);
    const png = await sharp(Buffer.from(r.data.buffer), { raw: { width: 200, height: 120, channels: 4 } }).png().toBuffer();
    const engine = createEngine({ threads: 0 });
    try {
      const res = await engine.vectorize(new Uint8Array(png), { colors: 'auto', detail: 'balanced' });
      expect(res.svg.startsWith('<svg')).toBe(true);
      expect(res.colorsUsed).toBe(3);
      await expect(engine.vectorize(new Uint8Array(png), { colors: 99 })).rejects.toMatchObject({ code: 'invalid_option', details: { field: 'colors' } });
    } finally {
      await engine.close();
    }
  });
});
