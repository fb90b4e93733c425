// The gang-sheet bench's two orders (issue 32), made from the open corpus by a fixed pseudo-random draw so every
// run, the suite (bench/suites/gangsheet.ts) and the study tools (bench/tools/gangsheet-*study.ts) bench the
// same copies: a mixed set of logos, lettering and illustrations at 2-12 in, quantities 1-20; and a set of
// round and slanted shapes at 2-6 in, quantities 4-15. Sheet: a 22 in roll, 0.125 in spacing, 0.25 in margins.

export const ROLL = 22;
export const SPACING = 0.125;
export const MARGIN = 0.25;

/** One line of an order: a corpus file at a print width, so many copies. */
export interface SetItem {
  file: string;
  widthIn: number;
  quantity: number;
}

/** A fixed draw (LCG), the same on every machine. */
export function draw(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export const MIXED_FILES = ['si-starbucks.svg', 'si-nasa.svg', 'lettering-brew-co.svg', 'lettering-good-vibes.svg', 'lettering-mountain-club.svg', 'gi-barn-owl.svg',
  'tw-1f98a-fox.svg', 'noto-1f981-lion.svg', 'om-black-2693-anchor.svg', 'gi-heraldic-sun.svg', 'tw-1f36f-honey-pot.svg', 'gi-dagger-rose.svg'];
export const ROUND_FILES = ['noto-1f3c0-basketball.svg', 'noto-1f369-doughnut.svg', 'noto-1f4c0-dvd.svg', 'noto-1f31e-sun-face.svg', 'si-starbucks.svg',
  'noto-1f680-rocket.svg', 'om-black-1f680-rocket.svg', 'noto-1f988-shark.svg'];

/** The mixed set; `short` (CI) takes 6 designs and smaller quantities. */
export function mixedSet(short = false): SetItem[] {
  const r = draw(32);
  return MIXED_FILES.slice(0, short ? 6 : MIXED_FILES.length).map((file) => ({
    file, widthIn: Math.round((2 + r() * 10) * 4) / 4, quantity: 1 + Math.floor(r() * (short ? 5 : 20)),
  }));
}

/** The round and slanted set; `short` (CI) takes 4 designs and smaller quantities. */
export function roundSet(short = false): SetItem[] {
  const r = draw(7);
  return ROUND_FILES.slice(0, short ? 4 : ROUND_FILES.length).map((file) => ({
    file, widthIn: Math.round((2 + r() * 4) * 4) / 4, quantity: 4 + Math.floor(r() * (short ? 4 : 12)),
  }));
}
