// Region-by-region decisions of the artwork matte: enclosed regions painted off-white stay (art), counters that
// show the background itself go; a flat region that a gradient background model approaches is kept whole (no
// cut along the tolerance line); small background-coloured islands (JPEG ringing) are removed, small dark dots
// are not. Measured on corpus pieces with known alpha and on synthetic cases.
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine, type Raster } from '@inkprep/engine';
import { matteArtwork } from '@inkprep/engine/internals';
import { decodeImage, rgbToLab } from '@inkprep/engine/internals';
import { composite, decodePng, jpegRoundTrip, lightGradient, renderCorpusPiece, renderSvg } from './helpers.js';

const engine = createEngine({ threads: 0 });
afterAll(() => engine.close());

function fgLost(out: Uint8ClampedArray, gt: Raster): number {
  let lost = 0, n = 0;
  for (let i = 0; i < gt.width * gt.height; i++) if (gt.data[i * 4 + 3] === 255) { lost += 1 - out[i * 4 + 3]! / 255; n++; }
  return (100 * lost) / n;
}
function iou(out: Uint8ClampedArray, gt: Raster): number {
  let mn = 0, mx = 0;
  for (let i = 0; i < gt.width * gt.height; i++) { const a = out[i * 4 + 3]! / 255, g = gt.data[i * 4 + 3]! / 255; mn += Math.min(a, g); mx += Math.max(a, g); }
  return mn / mx;
}
const white = (): [number, number, number] => [255, 255, 255];

describe('whites of the art', () => {
  it('off-white parts enclosed by the art stay; counters showing the background go', async () => {
    const art = await renderSvg(`<svg xmlns="http://www.w3.org/2000/svg" width="200" height="120">
      <circle cx="50" cy="60" r="40" fill="#202020"/><circle cx="50" cy="60" r="20" fill="#fdfcf8"/>
      <circle cx="150" cy="60" r="40" fill="none" stroke="#202020" stroke-width="16"/></svg>`);
    const r = matteArtwork(composite(art, white));
    expect(r.data[(60 * 200 + 50) * 4 + 3]).toBe(255); // the eye's off-white (dE ~1) is art
    expect(r.data[(60 * 200 + 150) * 4 + 3]).toBe(0); // the ring's counter is the background
    expect(iou(r.data, art)).toBeGreaterThan(0.99);
  });

  it('corpus: the butterfly wing dots and the shark teeth stay; lettering counters still go', async () => {
    for (const [file, maxLost] of [['noto-1f98b-butterfly.svg', 0.5], ['noto-1f988-shark.svg', 0.3]] as const) {
      const gt = await renderCorpusPiece(file, 384);
      expect(fgLost(matteArtwork(composite(gt, white)).data, gt), file).toBeLessThan(maxLost);
    }
    for (const file of ['lettering-good-vibes.svg', 'si-porsche.svg', 'gi-heraldic-sun.svg']) {
      const gt = await renderCorpusPiece(file, 384);
      const cut = iou(matteArtwork(composite(gt, white)).data, gt);
      expect(cut, file).toBeGreaterThan(0.985);
      // The counters are what make the difference: keeping every enclosed region scores clearly lower.
      expect(cut - iou(matteArtwork(composite(gt, white), { enclosed: 'keep' }).data, gt), file).toBeGreaterThan(0.01);
    }
  });

  it('a flat pale region on a gradient background is kept whole, never cut along a straight tolerance line', async () => {
    const gt = await renderCorpusPiece('tw-1f004-mahjong.svg', 384);
    expect(fgLost(matteArtwork(composite(gt, lightGradient(384))).data, gt)).toBeLessThan(0.3);
    // Synthetic: a flat light-grey square on a gradient that reaches its colour on one side.
    const art = await renderSvg('<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256"><rect x="40" y="60" width="170" height="140" fill="#ececec"/></svg>');
    const r = matteArtwork(composite(art, (x) => { const v = 252 - (x * 22) / 255; return [v, v, v]; }));
    expect(fgLost(r.data, art)).toBeLessThan(1);
  });
});

describe('whites of the art in a JPEG (codec noise hides the 0.5 ΔE the clean rule reads)', () => {
  // Rings on white, 4 colours (black, red, blue, yellow): empty (counters), filled #fcfdfa (ΔE 1.7, a flat
  // plateau inside) and, smaller, #f5f5f5 (ΔE 3.6, tinted throughout by the outline's chroma: no plateau).
  const colours = ['#000000', '#d62828', '#1d4ed8', '#f2ca30'];
  const ring = (cx: number, cy: number, r: number, stroke: string, fill: string): string => {
    const sw = Math.max(4, Math.round(r / 3));
    return `<circle cx="${cx}" cy="${cy}" r="${r + sw / 2}" fill="${fill}" stroke="${stroke}" stroke-width="${sw}"/>`;
  };
  const rings: { cx: number; cy: number; art: boolean }[] = [];
  let svg = '<svg xmlns="http://www.w3.org/2000/svg" width="640" height="400"><rect width="640" height="400" fill="#fff"/>';
  colours.forEach((c, k) => {
    const x = 80 + k * 160;
    svg += ring(x, 60, 30, c, '#fcfdfa'); rings.push({ cx: x, cy: 60, art: true });
    svg += ring(x, 170, 18, c, '#f5f5f5'); rings.push({ cx: x, cy: 170, art: true });
    svg += ring(x - 35, 300, 30, c, 'none'); rings.push({ cx: x - 35, cy: 300, art: false });
    svg += ring(x + 45, 300, 12, c, 'none'); rings.push({ cx: x + 45, cy: 300, art: false });
  });
  svg += '</svg>';

  it('off-white regions enclosed by the art stay, counters go (engine.removeBg, JPEG q85)', async () => {
    const scene = await renderSvg(svg);
    const res = await engine.removeBg(await jpegRoundTrip(scene, 85));
    const out = await decodePng(res.data);
    for (const { cx, cy, art } of rings) expect(out.data[(cy * 640 + cx) * 4 + 3], `${art ? 'off-white region' : 'counter'} at ${cx},${cy}`).toBe(art ? 255 : 0);
    // Before the JPEG rule every one of these off-white regions went with the counters.
    const before = matteArtwork((await decodeImage(await jpegRoundTrip(scene, 85))).raster, { jpeg: true, codecRegionRules: false }).data;
    expect(rings.filter((g) => g.art && before[(g.cy * 640 + g.cx) * 4 + 3] === 255)).toEqual([]);
  });

  it('corpus at JPEG q85: the butterfly wing dots stay; lettering and logo counters still go', async () => {
    const S = 1024;
    const gt = await renderCorpusPiece('noto-1f98b-butterfly.svg', S);
    const res = await engine.removeBg(await jpegRoundTrip(composite(gt, white), 85));
    expect(fgLost((await decodePng(res.data)).data, gt)).toBeLessThan(0.5); // 3.9 % before the JPEG rule
    for (const file of ['lettering-good-vibes.svg', 'si-porsche.svg', 'si-openbsd.svg']) {
      const art = await renderCorpusPiece(file, 512);
      const input = (await decodeImage(await jpegRoundTrip(composite(art, white), 85))).raster;
      const cut = iou(matteArtwork(input, { jpeg: true }).data, art);
      expect(cut - iou(matteArtwork(input, { jpeg: true, enclosed: 'keep' }).data, art), file).toBeGreaterThan(0.1);
      expect(cut - iou(matteArtwork(input, { jpeg: true, codecRegionRules: false }).data, art), file).toBe(0); // no counter kept
    }
  });
});

describe('background-coloured islands', () => {
  it('JPEG: pale islands up to 0.006 % of the pixels are removed; dark dots of the same size stay', () => {
    const S = 1024, data = new Uint8ClampedArray(S * S * 4).fill(255);
    const blob = (cx: number, cy: number, v: number): void => {
      for (let y = cy; y < cy + 3; y++) for (let x = cx; x < cx + 3; x++) data.fill(v, (y * S + x) * 4, (y * S + x) * 4 + 3);
    };
    for (let y = 200; y < 800; y++) for (let x = 300; x < 700; x++) data.fill(30, (y * S + x) * 4, (y * S + x) * 4 + 3); // the art
    blob(100, 100, 225); blob(900, 150, 228); // near-white islands (JPEG ringing)
    blob(120, 900, 20); // a real dark dot
    const r = matteArtwork({ width: S, height: S, data }, { jpeg: true });
    expect(r.data[(101 * S + 101) * 4 + 3]).toBe(0);
    expect(r.data[(151 * S + 901) * 4 + 3]).toBe(0);
    expect(r.data[(901 * S + 121) * 4 + 3]).toBe(255);
    expect(r.data[(500 * S + 500) * 4 + 3]).toBe(255);
  });

  it('JPEG chroma ringing: pale tinted islands (lightness of the background, colour off by up to 4x the tolerance) go; a pale-yellow dot stays', () => {
    const S = 1024, data = new Uint8ClampedArray(S * S * 4).fill(255);
    const blob = (cx: number, cy: number, side: number, rgb: [number, number, number]): void => {
      for (let y = cy; y < cy + side; y++) for (let x = cx; x < cx + side; x++) data.set(rgb, (y * S + x) * 4);
    };
    for (let y = 200; y < 800; y++) for (let x = 300; x < 700; x++) data.fill(30, (y * S + x) * 4, (y * S + x) * 4 + 3);
    blob(100, 100, 3, [255, 255, 222]); // yellow ringing next to a yellow edge: L 99.6, b* 16 (ΔE 16 > 2x the 7 ΔE tolerance)
    blob(900, 150, 2, [250, 255, 236]); // a greenish tint
    blob(120, 900, 5, [255, 240, 170]); // a real pale-yellow dot of the art: b* 36, L 95
    blob(900, 900, 3, [20, 20, 20]); // a real dark dot
    const r = matteArtwork({ width: S, height: S, data }, { jpeg: true });
    expect(r.data[(101 * S + 101) * 4 + 3]).toBe(0);
    expect(r.data[(150 * S + 900) * 4 + 3]).toBe(0);
    expect(r.data[(902 * S + 122) * 4 + 3]).toBe(255);
    expect(r.data[(901 * S + 901) * 4 + 3]).toBe(255);
  });

  it('corpus at JPEG q60 on white: no near-white islands left in the transparent area', async () => {
    const S = 1024;
    let islands = 0;
    for (const file of ['noto-1f31e-sun-face.svg', 'tw-1f36f-honey-pot.svg']) {
      const gt = await renderCorpusPiece(file, S);
      const input = (await decodeImage(await jpegRoundTrip(composite(gt, white), 60))).raster;
      const out = matteArtwork(input, { jpeg: true }).data;
      // Art support dilated by 3 px: an island is an alpha > 0 component outside it.
      const near = new Uint8Array(S * S);
      for (let y = 0; y < S; y++) for (let x = 0; x < S; x++) {
        if (gt.data[(y * S + x) * 4 + 3] === 0) continue;
        for (let yy = Math.max(0, y - 3); yy <= Math.min(S - 1, y + 3); yy++) near.fill(1, yy * S + Math.max(0, x - 3), yy * S + Math.min(S, x + 4));
      }
      const seen = new Uint8Array(S * S), lab: [number, number, number] = [0, 0, 0];
      for (let s = 0; s < S * S; s++) {
        if (seen[s] || out[s * 4 + 3] === 0) continue;
        const stack = [s];
        seen[s] = 1;
        let touches = false, pale = true;
        while (stack.length) {
          const i = stack.pop()!;
          if (near[i]) touches = true;
          rgbToLab(out[i * 4]!, out[i * 4 + 1]!, out[i * 4 + 2]!, lab);
          if (lab[0] < 90) pale = false;
          const x = i % S, y = (i - x) / S;
          for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) {
            const xx = x + dx, yy = y + dy, j = yy * S + xx;
            if (xx >= 0 && xx < S && yy >= 0 && yy < S && !seen[j] && out[j * 4 + 3]! > 0) { seen[j] = 1; stack.push(j); }
          }
        }
        if (!touches && pale) islands++;
      }
    }
    expect(islands).toBe(0); // 26 before the lightness rule
  });
});
