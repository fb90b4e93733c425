import { describe, expect, it } from 'vitest';
import { prepareImage } from '@inkprep/engine/internals';
import { quantize } from '@inkprep/engine/internals';
import { TRANSPARENT } from '@inkprep/engine/internals';
import { art, jpeg, labelAt, paletteHex, usedLabels } from './helpers-colour.js';

const SIX = `<rect width="200" height="200" fill="#ffffff"/>
  <circle cx="60" cy="60" r="40" fill="#e63946"/>
  <circle cx="140" cy="60" r="35" fill="#2a9d8f"/>
  <rect x="30" y="120" width="60" height="60" fill="#264653"/>
  <polygon points="120,180 160,110 190,180" fill="#f4a261"/>
  <ellipse cx="100" cy="100" rx="20" ry="12" fill="#8338ec"/>`;

describe('quantize', () => {
  it('keeps the exact palette of flat art (auto)', async () => {
    const r = await art(200, 200, SIX);
    const { map } = quantize(prepareImage(r, true), 'auto');
    expect(paletteHex(map).sort()).toEqual(['#264653', '#2a9d8f', '#8338ec', '#e63946', '#f4a261', '#ffffff'].sort());
    expect(usedLabels(map).size).toBe(6);
    expect(paletteHex(map)[labelAt(map, 60, 60)]).toBe('#e63946');
    expect(paletteHex(map)[labelAt(map, 175, 175)]).toBe('#f4a261');
  });

  it('absorbs anti-aliasing: a 2-colour anti-aliased shape gives exactly 2 colours', async () => {
    const r = await art(160, 120, `<rect width="160" height="120" fill="#1d3557"/><circle cx="70" cy="60" r="37.3" fill="#f1c40f"/><path d="M110 10 L150 110 L120 100 Z" fill="#f1c40f"/>`);
    const { map } = quantize(prepareImage(r, true), 'auto');
    expect(paletteHex(map).sort()).toEqual(['#1d3557', '#f1c40f']);
  });

  it('absorbs anti-aliasing against transparency: one colour, no rim', async () => {
    const r = await art(120, 120, `<circle cx="60" cy="60" r="41.7" fill="#c0392b"/><rect x="10" y="10" width="30" height="9.5" transform="rotate(17 25 15)" fill="#c0392b"/>`);
    const prep = prepareImage(r, true);
    const { map } = quantize(prep, 'auto');
    expect(paletteHex(map)).toEqual(['#c0392b']);
    // Transparent pixels are never labelled.
    for (let i = 0; i < prep.mask.length; i++) expect(map.labels[i] === TRANSPARENT).toBe(prep.mask[i] === 0);
  });

  it('absorbs JPEG noise: a 2-colour shape saved as JPEG q85 quantizes to 2 colours close to the inks', async () => {
    const r = await jpeg(await art(200, 160, `<rect width="200" height="160" fill="#ffffff"/><circle cx="80" cy="80" r="50" fill="#2496ed"/><rect x="140" y="30" width="40" height="100" fill="#2496ed"/>`));
    const { map, noisy } = quantize(prepareImage(r, true), 'auto', undefined, true);
    expect(noisy).toBe(true);
    const hex = paletteHex(map);
    expect(hex.length).toBe(2);
    const blue = map.palette.slice(hex[0] === '#ffffff' || map.palette[0]! > 200 ? 3 : 0);
    expect(Math.abs(blue[0]! - 0x24) + Math.abs(blue[1]! - 0x96) + Math.abs(blue[2]! - 0xed)).toBeLessThan(18);
  });

  it('picks a small palette on flat art saved as JPEG', async () => {
    const { map } = quantize(prepareImage(await jpeg(await art(200, 200, SIX)), true), 'auto', undefined, true);
    expect(usedLabels(map).size).toBeGreaterThanOrEqual(6);
    expect(usedLabels(map).size).toBeLessThanOrEqual(7);
  });

  it('treats an integer as a maximum', async () => {
    const r = await art(200, 200, SIX);
    const three = quantize(prepareImage(r, true), 3).map;
    expect(usedLabels(three).size).toBeLessThanOrEqual(3);
    const twenty = quantize(prepareImage(r, true), 20).map;
    expect(usedLabels(twenty).size).toBe(6);
  });

  it('colors=1 gives a single-colour silhouette of everything non-transparent', async () => {
    const r = await art(100, 100, `<circle cx="50" cy="50" r="40" fill="#111111"/><circle cx="50" cy="50" r="10" fill="#eeeeee"/>`);
    const prep = prepareImage(r, true);
    const { map } = quantize(prep, 1);
    expect(map.palette.length).toBe(3);
    expect(paletteHex(map)[0]).toBe('#111111');
    for (let i = 0; i < prep.mask.length; i++) expect(map.labels[i]).toBe(prep.mask[i] ? 0 : TRANSPARENT);
  });

  it('colors=1 on an opaque upload drops the paper', async () => {
    const r = await jpeg(await art(100, 100, `<rect width="100" height="100" fill="#fff"/><circle cx="50" cy="50" r="30" fill="#000"/>`));
    const { map } = quantize(prepareImage(r, true), 1);
    expect(labelAt(map, 2, 2)).toBe(TRANSPARENT);
    expect(labelAt(map, 50, 50)).toBe(0);
  });

  it('unlimited keeps many colours for shaded art', async () => {
    const r = await art(256, 64, `<defs><linearGradient id="g"><stop offset="0" stop-color="#000"/><stop offset="1" stop-color="#f80"/></linearGradient></defs><rect width="256" height="64" fill="url(#g)"/>`);
    const auto = quantize(prepareImage(r, true), 'auto').map;
    const many = quantize(prepareImage(r, true), 'unlimited').map;
    expect(usedLabels(auto).size).toBeLessThanOrEqual(20);
    expect(usedLabels(many).size).toBeGreaterThan(20);
  });

  it('is deterministic', async () => {
    const r = await jpeg(await art(200, 200, SIX));
    const a = quantize(prepareImage(r, true), 'auto', undefined, true).map;
    const b = quantize(prepareImage(r, true), 'auto', undefined, true).map;
    expect(Buffer.from(a.palette).equals(Buffer.from(b.palette))).toBe(true);
    expect(Buffer.from(a.labels.buffer).equals(Buffer.from(b.labels.buffer))).toBe(true);
  });
});
