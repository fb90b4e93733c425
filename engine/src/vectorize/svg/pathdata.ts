// Compact SVG path data: coordinates snapped to a 0.1 px grid (max error 0.05 px per coordinate, so the
// rendered outline stays within 0.1 px), relative commands computed from the snapped absolute points (no
// drift), h/v for axis-aligned lines, command letters omitted when repeated, separators only where needed.

import type { PathSegments } from '../types.js';

/** Grid steps per source pixel. */
const SCALE = 10;

/** Formats an integer count of tenths: 15 -> "1.5", -3 -> "-.3", 20 -> "2". */
function num(t: number): string {
  if (t === 0) return '0';
  const neg = t < 0;
  const a = neg ? -t : t;
  const whole = Math.floor(a / SCALE);
  const frac = a % SCALE;
  let s = frac === 0 ? String(whole) : whole === 0 ? '.' + frac : whole + '.' + frac;
  if (neg) s = '-' + s;
  return s;
}

class Writer {
  out = '';
  private cmd = '';
  /** whether the last emitted token was a number containing a '.' */
  private lastHasDot = false;
  private lastWasNumber = false;

  command(c: string): void {
    if (c === this.cmd && c !== 'M' && c !== 'm') return;
    this.out += c;
    this.cmd = c;
    this.lastWasNumber = false;
    this.lastHasDot = false;
  }

  number(t: number): void {
    const s = num(t);
    if (this.lastWasNumber) {
      const startsWithSign = s[0] === '-';
      const startsWithDot = s[0] === '.';
      if (!startsWithSign && !(startsWithDot && this.lastHasDot)) this.out += ' ';
    }
    this.out += s;
    this.lastWasNumber = true;
    this.lastHasDot = s.includes('.');
  }

  resetCommand(): void {
    this.cmd = '';
  }
}

/** Encodes subpaths as compact path data; returns the string and the number of movetos. */
export function encodePath(subpaths: PathSegments[]): { d: string; moves: number } {
  const w = new Writer();
  let cx = 0;
  let cy = 0;
  let moves = 0;
  let first = true;
  for (const sp of subpaths) {
    if (sp.segs.length === 0) continue;
    const sx = Math.round(sp.start[0] * SCALE);
    const sy = Math.round(sp.start[1] * SCALE);
    if (first) {
      w.command('M');
      w.number(sx);
      w.number(sy);
      first = false;
    } else {
      w.command('m');
      w.number(sx - cx);
      w.number(sy - cy);
    }
    moves++;
    cx = sx;
    cy = sy;
    const n = sp.segs.length;
    for (let i = 0; i < n; i++) {
      const s = sp.segs[i]!;
      const x = Math.round(s.x * SCALE);
      const y = Math.round(s.y * SCALE);
      if (s.kind === 'L') {
        // the closing line is implied by z
        if (i === n - 1 && x === sx && y === sy) break;
        if (x === cx && y === cy) continue;
        if (y === cy) {
          w.command('h');
          w.number(x - cx);
        } else if (x === cx) {
          w.command('v');
          w.number(y - cy);
        } else {
          w.command('l');
          w.number(x - cx);
          w.number(y - cy);
        }
      } else {
        const x1 = Math.round(s.x1 * SCALE);
        const y1 = Math.round(s.y1 * SCALE);
        const x2 = Math.round(s.x2 * SCALE);
        const y2 = Math.round(s.y2 * SCALE);
        w.command('c');
        w.number(x1 - cx);
        w.number(y1 - cy);
        w.number(x2 - cx);
        w.number(y2 - cy);
        w.number(x - cx);
        w.number(y - cy);
      }
      cx = x;
      cy = y;
    }
    w.command('z');
    w.resetCommand();
    // after z the current point is the subpath start
    cx = sx;
    cy = sy;
  }
  return { d: w.out, moves };
}
