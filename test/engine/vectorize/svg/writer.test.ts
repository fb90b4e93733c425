// SVG writer: document shape (viewBox in px, inches with a print width), compact relative path data that
// stays within 0.1 px of the traced coordinates, moveto count and colours used, gradients, determinism,
// and that resvg parses and renders the result.
import { describe, expect, it } from 'vitest';
import { Resvg } from '@resvg/resvg-js';
import { writeSvg, hexColour } from '@inkprep/engine/internals';
import { encodePath } from '../../../../engine/src/vectorize/svg/pathdata.js';
import { traceLabelMap } from '@inkprep/engine/internals';
import type { Fill, PathSegments, TraceResult } from '@inkprep/engine/internals';
import { BALANCED, blank, disc, fillsFor, parsePathData, rng } from '../trace/helpers.js';

const square: PathSegments = { start: [1, 1], segs: [{ kind: 'L', x: 9, y: 1 }, { kind: 'L', x: 9, y: 9 }, { kind: 'L', x: 1, y: 9 }, { kind: 'L', x: 1, y: 1 }] };
const red: Fill = { kind: 'solid', rgb: [255, 0, 0] };

describe('writeSvg', () => {
  it('writes viewBox in source px and width/height in px by default', () => {
    const out = writeSvg({ shapes: [{ label: 0, subpaths: [square] }] }, [red], { width: 10, height: 20 });
    expect(out.svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 10 20" width="10" height="20">/);
    expect(out.svg).toContain('<path fill="#f00" d="M1 1h8v8h-8z"/>');
    expect(out.paths).toBe(1);
    expect(out.colorsUsed).toBe(1);
    expect(out.svg).not.toMatch(/metadata|<!--|inkscape|sodipodi|version=/);
  });

  it('writes physical inches when a print width is given, keeping the viewBox', () => {
    const out = writeSvg({ shapes: [{ label: 0, subpaths: [square] }] }, [red], { width: 1000, height: 500, printWidthInches: 12 });
    expect(out.svg).toContain('viewBox="0 0 1000 500" width="12in" height="6in"');
  });

  it('counts movetos over compound paths and distinct colours used', () => {
    const shifted = (dx: number): PathSegments => ({ start: [square.start[0] + dx, 1], segs: square.segs.map((s) => ({ ...s, x: s.x + dx })) });
    const res: TraceResult = {
      shapes: [
        { label: 0, subpaths: [square, shifted(20)] },
        { label: 2, subpaths: [shifted(40)] },
        { label: 0, subpaths: [shifted(60)] },
      ],
    };
    const out = writeSvg(res, [red, red, { kind: 'solid', rgb: [0, 128, 255] }], { width: 80, height: 10 });
    expect(out.paths).toBe(4);
    expect(out.colorsUsed).toBe(2);
    expect(out.svg.match(/<path /g)).toHaveLength(3);
    expect(out.svg).toContain('fill="#0080ff"');
  });

  it('encodes curves compactly within 0.1 px of the input (no drift over long paths)', () => {
    const r = rng(5);
    const segs: PathSegments['segs'] = [];
    let x = 500;
    let y = 500;
    for (let i = 0; i < 400; i++) {
      const nx = x + (r() - 0.5) * 30;
      const ny = y + (r() - 0.5) * 30;
      if (i % 2) segs.push({ kind: 'L', x: nx, y: ny });
      else segs.push({ kind: 'C', x1: x + r() * 5, y1: y + r() * 5, x2: nx - r() * 5, y2: ny - r() * 5, x: nx, y: ny });
      x = nx;
      y = ny;
    }
    const sp: PathSegments = { start: [500.123, 499.987], segs };
    const { d, moves } = encodePath([sp, square]);
    expect(moves).toBe(2);
    const parsed = parsePathData(d);
    expect(parsed.moves).toBe(2);
    const expected = [sp.start, ...segs.map((s) => [s.x, s.y])];
    // first subpath: M then one point per segment
    for (let i = 0; i < expected.length; i++) {
      expect(Math.abs(parsed.points[i]![0] - expected[i]![0]!)).toBeLessThanOrEqual(0.05 + 1e-9);
      expect(Math.abs(parsed.points[i]![1] - expected[i]![1]!)).toBeLessThanOrEqual(0.05 + 1e-9);
    }
    expect(d).not.toMatch(/[0-9]\.[0-9]{2}/); // one decimal at most
    expect(d).not.toMatch(/ -|\s{2}|(^|[^0-9])0\.\d/); // no redundant separators or leading zeros
    expect(d.startsWith('M500.1 500')).toBe(true);
  });

  it('writes gradient fills as userSpaceOnUse defs referenced by url()', () => {
    const fills: Fill[] = [
      { kind: 'linear', x1: 0, y1: 0, x2: 10, y2: 0, stops: [{ offset: 0, rgb: [0, 0, 0] }, { offset: 1, rgb: [255, 255, 255] }] },
      { kind: 'radial', cx: 5, cy: 5, r: 4.5, stops: [{ offset: 0, rgb: [255, 0, 0] }, { offset: 0.5, rgb: [0, 0, 255] }] },
    ];
    const out = writeSvg({ shapes: [{ label: 0, subpaths: [square] }, { label: 1, subpaths: [square] }] }, fills, { width: 10, height: 10 });
    expect(out.svg).toContain('<linearGradient id="g0" gradientUnits="userSpaceOnUse" x1="0" y1="0" x2="10" y2="0">');
    expect(out.svg).toContain('<radialGradient id="g1" gradientUnits="userSpaceOnUse" cx="5" cy="5" r="4.5">');
    expect(out.svg).toContain('fill="url(#g0)"');
    const img = new Resvg(out.svg).render();
    expect(img.width).toBe(10);
  });

  it('is deterministic and renders with resvg', () => {
    const map = blank(48, 48, 3);
    disc(map, 24, 24, 20, 0);
    disc(map, 20, 20, 9, 1, 3);
    disc(map, 30, 32, 6, 2);
    const a = writeSvg(traceLabelMap(map, BALANCED), fillsFor(map), { width: 48, height: 48, printWidthInches: 2 });
    const b = writeSvg(traceLabelMap(map, BALANCED), fillsFor(map), { width: 48, height: 48, printWidthInches: 2 });
    expect(a.svg).toBe(b.svg);
    const img = new Resvg(a.svg, { fitTo: { mode: 'width', value: 48 } }).render();
    expect(img.width).toBe(48);
    expect(img.height).toBe(48);
    expect(a.colorsUsed).toBe(3);
  });

  it('formats colours as short hex', () => {
    expect(hexColour([255, 255, 255])).toBe('#fff');
    expect(hexColour([18, 52, 86])).toBe('#123456');
    expect(hexColour([0, 0, 0])).toBe('#000');
  });
});
