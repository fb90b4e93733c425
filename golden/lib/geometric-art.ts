// A geometric art set for primitive recognition (issue 19): badges, dots, frames, rounded buttons, rotated
// rectangles and ellipses, the kind of flat art that is made of circles, ellipses and (rounded) rectangles.
// Each piece is SVG markup on a 512 x 512 canvas, transparent background; `shapes` counts the primitive
// outlines a perfect recogniser would find (holes included), for the recognised share.
export interface GeometricPiece {
  name: string;
  svg: string;
  /** Closed outlines of the drawing that are circles, ellipses, rectangles or rounded rectangles. */
  shapes: number;
}

const S = 512;
const wrap = (body: string) => `<svg xmlns="http://www.w3.org/2000/svg" width="${S}" height="${S}" viewBox="0 0 ${S} ${S}">${body}</svg>`;

function dots(): string {
  let out = '';
  for (let y = 0; y < 5; y++) for (let x = 0; x < 5; x++) out += `<circle cx="${66 + x * 95}" cy="${66 + y * 95}" r="${14 + ((x + y) % 3) * 8}" fill="${['#e63946', '#264653', '#2a9d8f'][(x * 2 + y) % 3]}"/>`;
  return out;
}

/** The set, in a fixed order. */
export const GEOMETRIC_ART: readonly GeometricPiece[] = [
  { name: 'badge', shapes: 5, svg: wrap('<circle cx="256" cy="256" r="220" fill="#1d3557"/><circle cx="256" cy="256" r="180" fill="#f1faee"/><circle cx="256" cy="256" r="140" fill="#e63946"/><circle cx="256" cy="256" r="60" fill="#f1faee"/><circle cx="256" cy="256" r="25" fill="#1d3557"/>') },
  { name: 'polka-dots', shapes: 25, svg: wrap(dots()) },
  { name: 'frame', shapes: 2, svg: wrap('<path fill-rule="evenodd" fill="#6d597a" d="M40 60h432v392H40z M90 110h332v292H90z"/>') },
  { name: 'rounded-frame', shapes: 2, svg: wrap('<path fill-rule="evenodd" fill="#355070" d="M100 40h312a60 60 0 0 1 60 60v312a60 60 0 0 1-60 60H100a60 60 0 0 1-60-60V100a60 60 0 0 1 60-60z M130 100h252a30 30 0 0 1 30 30v252a30 30 0 0 1-30 30H130a30 30 0 0 1-30-30V130a30 30 0 0 1 30-30z"/>') },
  { name: 'buttons', shapes: 3, svg: wrap('<rect x="56" y="60" width="400" height="110" rx="55" fill="#2a9d8f"/><rect x="56" y="210" width="400" height="110" rx="24" fill="#e76f51"/><rect x="56" y="360" width="180" height="90" rx="12" fill="#264653"/>') },
  { name: 'tilted-cards', shapes: 3, svg: wrap('<rect x="80" y="120" width="220" height="140" fill="#ffb703" transform="rotate(-18 190 190)"/><rect x="230" y="240" width="200" height="180" rx="28" fill="#219ebc" transform="rotate(25 330 330)"/><rect x="300" y="40" width="150" height="90" fill="#023047" transform="rotate(40 375 85)"/>') },
  { name: 'eyes', shapes: 4, svg: wrap('<ellipse cx="160" cy="256" rx="120" ry="70" transform="rotate(-20 160 256)" fill="#ffffff" stroke="none"/><ellipse cx="360" cy="256" rx="120" ry="70" transform="rotate(20 360 256)" fill="#ffffff"/><circle cx="170" cy="252" r="34" fill="#3a86ff"/><circle cx="350" cy="252" r="34" fill="#3a86ff"/>') },
  { name: 'traffic-light', shapes: 4, svg: wrap('<rect x="176" y="20" width="160" height="472" rx="40" fill="#222222"/><circle cx="256" cy="110" r="50" fill="#e63946"/><circle cx="256" cy="256" r="50" fill="#ffb703"/><circle cx="256" cy="402" r="50" fill="#2a9d8f"/>') },
  { name: 'target-ring', shapes: 4, svg: wrap('<path fill-rule="evenodd" fill="#d62828" d="M256 36a220 220 0 1 0 .01 0zM256 106a150 150 0 1 0 .01 0z"/><path fill-rule="evenodd" fill="#d62828" d="M256 166a90 90 0 1 0 .01 0zM256 216a40 40 0 1 0 .01 0z"/>') },
  { name: 'ellipse-logo', shapes: 3, svg: wrap('<ellipse cx="256" cy="256" rx="230" ry="130" fill="#8338ec"/><ellipse cx="256" cy="256" rx="170" ry="80" fill="#ffbe0b"/><rect x="196" y="226" width="120" height="60" fill="#8338ec"/>') },
];
