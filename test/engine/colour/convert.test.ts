// Colour helpers against published reference values: sRGB transfer (IEC 61966-2-1), CIELAB D65 primaries,
// OKLab (Ottosson 2020) and CIEDE2000 test pairs (Sharma, Wu, Dalal 2005, Table 1).
import { describe, expect, it } from 'vitest';
import { deltaE2000, deltaE76, deltaERgb, labToRgb, linearToSrgb, linearToSrgb8, oklabToRgb, rgbToLab, rgbToOklab, rgbaToLabArray, rgbaToOklabArray, srgbToLinear8, toHex } from '@inkprep/engine/internals';

describe('sRGB transfer', () => {
  it('matches the sRGB curve at known points', () => {
    expect(srgbToLinear8(0)).toBe(0);
    expect(srgbToLinear8(255)).toBe(1);
    expect(srgbToLinear8(128)).toBeCloseTo(0.2158605, 6);
    expect(srgbToLinear8(10)).toBeCloseTo(10 / 255 / 12.92, 7); // linear segment
    expect(linearToSrgb(0.5)).toBeCloseTo(0.7353569, 6);
    expect(linearToSrgb(-1)).toBe(0);
    expect(linearToSrgb(2)).toBe(1);
  });
  it('8-bit values survive sRGB -> linear -> sRGB', () => {
    for (let v = 0; v < 256; v++) expect(linearToSrgb8(srgbToLinear8(v))).toBe(v);
  });
});

describe('CIELAB (D65)', () => {
  const refs: [number[], number[]][] = [
    [[255, 255, 255], [100, 0, 0]],
    [[0, 0, 0], [0, 0, 0]],
    [[255, 0, 0], [53.2408, 80.0925, 67.2032]],
    [[0, 255, 0], [87.7347, -86.1827, 83.1793]],
    [[0, 0, 255], [32.297, 79.1875, -107.8602]],
    [[128, 128, 128], [53.585, 0, 0]],
  ];
  it('sRGB primaries, white, black and grey match reference Lab values', () => {
    for (const [rgb, lab] of refs) {
      const out = rgbToLab(rgb[0]!, rgb[1]!, rgb[2]!);
      for (let k = 0; k < 3; k++) expect(Math.abs(out[k]! - lab[k]!), `${rgb} component ${k}: ${out}`).toBeLessThan(0.02);
    }
  });
  it('Lab -> sRGB inverts sRGB -> Lab for 8-bit colours', () => {
    for (let i = 0; i < 2000; i++) {
      const r = (i * 37) & 255, g = (i * 91) & 255, b = (i * 53 + 7) & 255;
      const [L, a, bb] = rgbToLab(r, g, b);
      expect(labToRgb(L, a, bb)).toEqual([r, g, b]);
    }
  });
  it('array form equals the per-pixel function and ignores alpha', () => {
    const rgba = new Uint8ClampedArray([255, 0, 0, 255, 10, 200, 30, 0, 255, 0, 0, 17]);
    const lab = rgbaToLabArray(rgba);
    expect(lab.length).toBe(9);
    const ref = rgbToLab(10, 200, 30);
    for (let k = 0; k < 3; k++) expect(lab[3 + k]).toBeCloseTo(ref[k]!, 4);
    expect(Array.from(lab.subarray(0, 3))).toEqual(Array.from(lab.subarray(6, 9)));
  });
});

describe('OKLab', () => {
  // Reference values from Björn Ottosson's OKLab post (linear sRGB primaries through M1/M2).
  const refs: [number[], number[]][] = [
    [[255, 255, 255], [1, 0, 0]],
    [[255, 0, 0], [0.627955, 0.224863, 0.125846]],
    [[0, 255, 0], [0.86644, -0.233888, 0.179498]],
    [[0, 0, 255], [0.452014, -0.032457, -0.311528]],
  ];
  it('matches reference values', () => {
    for (const [rgb, lab] of refs) {
      const out = rgbToOklab(rgb[0]!, rgb[1]!, rgb[2]!);
      for (let k = 0; k < 3; k++) expect(Math.abs(out[k]! - lab[k]!), `${rgb} component ${k}`).toBeLessThan(1e-3);
    }
  });
  it('round trips 8-bit colours and the array form agrees', () => {
    for (let i = 0; i < 2000; i++) {
      const r = (i * 29 + 3) & 255, g = (i * 71) & 255, b = (i * 13 + 100) & 255;
      const [L, a, bb] = rgbToOklab(r, g, b);
      expect(oklabToRgb(L, a, bb)).toEqual([r, g, b]);
    }
    const arr = rgbaToOklabArray(new Uint8ClampedArray([0, 0, 255, 255]));
    expect(arr[2]).toBeCloseTo(-0.311528, 3);
  });
});

describe('ΔE', () => {
  // Sharma, Wu & Dalal (2005), "The CIEDE2000 color-difference formula", Table 1: all 34 pairs.
  const pairs: [number, number, number, number, number, number, number][] = [
    [50, 2.6772, -79.7751, 50, 0, -82.7485, 2.0425],
    [50, 3.1571, -77.2803, 50, 0, -82.7485, 2.8615],
    [50, 2.8361, -74.02, 50, 0, -82.7485, 3.4412],
    [50, -1.3802, -84.2814, 50, 0, -82.7485, 1.0],
    [50, -1.1848, -84.8006, 50, 0, -82.7485, 1.0],
    [50, -0.9009, -85.5211, 50, 0, -82.7485, 1.0],
    [50, 0, 0, 50, -1, 2, 2.3669],
    [50, -1, 2, 50, 0, 0, 2.3669],
    [50, 2.49, -0.001, 50, -2.49, 0.0009, 7.1792],
    [50, 2.49, -0.001, 50, -2.49, 0.001, 7.1792],
    [50, 2.49, -0.001, 50, -2.49, 0.0011, 7.2195],
    [50, 2.49, -0.001, 50, -2.49, 0.0012, 7.2195],
    [50, -0.001, 2.49, 50, 0.0009, -2.49, 4.8045],
    [50, -0.001, 2.49, 50, 0.001, -2.49, 4.8045],
    [50, -0.001, 2.49, 50, 0.0011, -2.49, 4.7461],
    [50, 2.5, 0, 50, 0, -2.5, 4.3065],
    [50, 2.5, 0, 73, 25, -18, 27.1492],
    [50, 2.5, 0, 61, -5, 29, 22.8977],
    [50, 2.5, 0, 56, -27, -3, 31.903],
    [50, 2.5, 0, 58, 24, 15, 19.4535],
    [50, 2.5, 0, 50, 3.1736, 0.5854, 1.0],
    [50, 2.5, 0, 50, 3.2972, 0, 1.0],
    [50, 2.5, 0, 50, 1.8634, 0.5757, 1.0],
    [50, 2.5, 0, 50, 3.2592, 0.335, 1.0],
    [60.2574, -34.0099, 36.2677, 60.4626, -34.1751, 39.4387, 1.2644],
    [63.0109, -31.0961, -5.8663, 62.8187, -29.7946, -4.0864, 1.263],
    [61.2901, 3.7196, -5.3901, 61.4292, 2.248, -4.962, 1.8731],
    [35.0831, -44.1164, 3.7933, 35.0232, -40.0716, 1.5901, 1.8645],
    [22.7233, 20.0904, -46.694, 23.0331, 14.973, -42.5619, 2.0373],
    [36.4612, 47.858, 18.3852, 36.2715, 50.5065, 21.2231, 1.4146],
    [90.8027, -2.0831, 1.441, 91.1528, -1.6435, 0.0447, 1.4441],
    [90.9257, -0.5406, -0.9208, 88.6381, -0.8985, -0.7239, 1.5381],
    [6.7747, -0.2908, -2.4247, 5.8714, -0.0985, -2.2286, 0.6377],
    [2.0776, 0.0795, -1.135, 0.9033, -0.0636, -0.5514, 0.9082],
  ];
  it('CIEDE2000 matches all Sharma et al. test pairs to 4 decimals, symmetrically', () => {
    for (const [L1, a1, b1, L2, a2, b2, want] of pairs) {
      expect(Math.abs(deltaE2000(L1, a1, b1, L2, a2, b2) - want), `pair ${[L1, a1, b1, L2, a2, b2]}`).toBeLessThan(1e-4);
      expect(Math.abs(deltaE2000(L2, a2, b2, L1, a1, b1) - want)).toBeLessThan(1e-4);
    }
    expect(deltaE2000(50, 10, 10, 50, 10, 10)).toBe(0);
  });
  it('CIE76 is the Euclidean Lab distance; RGB form goes through Lab', () => {
    expect(deltaE76(50, 0, 0, 53, 4, 0)).toBe(5);
    expect(deltaERgb(255, 255, 255, 0, 0, 0)).toBeCloseTo(100, 2);
    expect(deltaERgb(12, 34, 56, 12, 34, 56)).toBe(0);
  });
  it('toHex', () => {
    expect(toHex(255, 0, 17)).toBe('#ff0011');
    expect(toHex(0, 0, 0)).toBe('#000000');
  });
});
