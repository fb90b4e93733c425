// The baseline of the gang-sheet bench: what most gang-sheet builders do, a bounding-box packer. Boxes (each
// design's print box plus the spacing) are placed by the bottom-left skyline rule, tallest first, each at the
// position (over both turns when allowed) whose top ends lowest, then leftmost. Outlines are ignored: a round
// logo takes its square.

/** One box to place, inches (the art's box; the spacing is added here). */
export interface Box {
  w: number;
  h: number;
}

interface Segment {
  x: number;
  w: number;
  y: number;
}

/**
 * Length of film a skyline packer needs for `boxes` on a roll `widthIn` wide, with `spacingIn` between boxes
 * and `marginIn` at the edges; `turn` allows 90 degree turns.
 * @example skylineLength([{ w: 3, h: 2 }], 22, 0.125, 0.25, true)
 */
export function skylineLength(boxes: readonly Box[], widthIn: number, spacingIn: number, marginIn: number, turn: boolean): number {
  // boxes grown by the spacing on a strip grown by it too: two grown boxes that touch are exactly the spacing apart
  const W = widthIn - 2 * marginIn + spacingIn;
  const items = boxes.map((b) => ({ w: b.w + spacingIn, h: b.h + spacingIn })).sort((a, b) => Math.max(b.w, b.h) - Math.max(a.w, a.h) || b.h - a.h);
  let sky: Segment[] = [{ x: 0, w: W, y: 0 }];
  let top = 0;
  for (const it of items) {
    let best: { x: number; y: number; w: number; h: number } | null = null;
    for (const [w, h] of turn ? [[it.w, it.h], [it.h, it.w]] : [[it.w, it.h]]) {
      if (w > W + 1e-9) continue;
      for (let i = 0; i < sky.length; i++) {
        const x = sky[i]!.x;
        if (x + w > W + 1e-9) break;
        let y = 0;
        for (let j = i; j < sky.length && sky[j]!.x < x + w - 1e-9; j++) y = Math.max(y, sky[j]!.y);
        if (!best || y + h < best.y + best.h - 1e-9 || (Math.abs(y + h - best.y - best.h) <= 1e-9 && x < best.x)) best = { x, y, w: w!, h: h! };
      }
    }
    if (!best) throw new Error('skyline: a box is wider than the roll');
    // the new segment replaces the skyline under it
    const next: Segment[] = [];
    const x0 = best.x, x1 = best.x + best.w;
    for (const s of sky) {
      const s1 = s.x + s.w;
      if (s1 <= x0 + 1e-12 || s.x >= x1 - 1e-12) { next.push(s); continue; }
      if (s.x < x0) next.push({ x: s.x, w: x0 - s.x, y: s.y });
      if (s1 > x1) next.push({ x: x1, w: s1 - x1, y: s.y });
    }
    next.push({ x: x0, w: best.w, y: best.y + best.h });
    next.sort((a, b) => a.x - b.x);
    // merge neighbours at the same height
    sky = [];
    for (const s of next) {
      const last = sky[sky.length - 1];
      if (last && Math.abs(last.y - s.y) < 1e-12 && Math.abs(last.x + last.w - s.x) < 1e-9) last.w += s.w;
      else sky.push({ ...s });
    }
    top = Math.max(top, best.y + best.h);
  }
  return top - spacingIn + 2 * marginIn;
}
