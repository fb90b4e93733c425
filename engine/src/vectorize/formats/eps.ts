// EPS writer for traced shapes (EPSF-3.0): the bounding box is the physical size of the art in points
// (print width, else 72 px per inch), the body is the PDF writer's painting operators (`m l c h f rg`, bound to
// moveto/lineto/curveto/closepath/fill/setrgbcolor in the prolog) in source pixels under one Y-flipping
// `concat`. Gradient fills use `shfill` with the same shading dictionaries as the PDF (LanguageLevel 3, said
// in the header only when the art has gradients). Transparent pixels stay unpainted. Plain 7-bit text.
import type { Fill, TraceResult } from '../types.js';
import { drawnShapes, inchesPerPx, num, PT_PER_INCH, type PageOptions } from './page.js';
import { paintOps } from './postscript.js';

export interface EpsResult {
  eps: string;
  paths: number;
  colorsUsed: number;
}

/**
 * Writes an EPS file painting `result` with `fills` (shape `s` takes `fills[s.label]`).
 * @example writeEps(trace, fills, { width: 1024, height: 768 }) // %%BoundingBox: 0 0 1024 768
 */
export function writeEps(result: TraceResult, fills: readonly Fill[], opts: PageOptions): EpsResult {
  const { shapes, paths, colorsUsed } = drawnShapes(result);
  const s = inchesPerPx(opts) * PT_PER_INCH;
  const wPt = opts.width * s, hPt = opts.height * s;
  let gradients = false;
  const body = paintOps(shapes, fills, (_label, dict) => {
    gradients = true;
    return dict;
  });
  const ops: [string, string][] = [['m', 'moveto'], ['l', 'lineto'], ['c', 'curveto'], ['h', 'closepath'], ['f', 'fill'], ['rg', 'setrgbcolor'], ['q', 'gsave'], ['Q', 'grestore'], ['W', 'clip'], ['n', 'newpath']];
  if (gradients) ops.push(['sh', 'shfill']);
  const eps =
    '%!PS-Adobe-3.0 EPSF-3.0\n' +
    `%%BoundingBox: 0 0 ${Math.ceil(wPt - 1e-6)} ${Math.ceil(hPt - 1e-6)}\n` +
    `%%HiResBoundingBox: 0 0 ${num(wPt, 3)} ${num(hPt, 3)}\n` +
    (gradients ? '%%LanguageLevel: 3\n' : '') +
    '%%EndComments\n' +
    '%%BeginProlog\n' +
    `/InkprepDict ${ops.length} dict def\nInkprepDict begin\n${ops.map(([k, v]) => `/${k} /${v} load def\n`).join('')}end\n` +
    '%%EndProlog\n' +
    'InkprepDict begin\ngsave\n' +
    `[${num(s, 6)} 0 0 ${num(-s, 6)} 0 ${num(hPt, 3)}] concat\n` +
    body +
    'grestore\nend\nshowpage\n%%EOF\n';
  return { eps, paths, colorsUsed };
}
