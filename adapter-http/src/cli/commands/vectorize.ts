// `inkprep vectorize <file|-> -o <out.svg|out.pdf|out.eps|out.dxf|-> [--colors auto] ...`: raster art -> SVG,
// PDF, EPS or DXF (the -o extension picks the format unless --output-format says it).
import { runFileVerb } from '../file-verb.js';
import type { Command } from '../command.js';
import { textOptions } from '@inkprep/engine';

const USAGE = `usage: inkprep vectorize <in.png|jpg|webp|-> -o <out.svg|out.pdf|out.eps|out.dxf|-> [options]

Options (same names and values as POST /api/v1/vectorize):
  --colors auto|1-20|unlimited    palette: auto (default) picks the smallest true palette, N is a maximum
  --detail smoother|balanced|precise
  --shape-style stacked|cutout
  --speck-size 0-16                merge blobs smaller than this many px across (default 4)
  --edge-cleanup true|false        resolve semi-transparent edge pixels (default true)
  --smooth-bands true|false        only with --colors unlimited (default true)
  --gradients true|false           allow gradient fills on shaded art (default false)
  --print-width-inches N           physical width in inches (SVG width/height; PDF/EPS page and DXF
                                   coordinates, which otherwise use 72 px per inch)
  --output-format svg|pdf|eps|dxf  default: from the -o extension (.pdf, .eps, .dxf), else svg
  --dxf-units in|mm                DXF drawing units (default in)
  --primitives true|false          write circles, ellipses, (rounded) rectangles as exact shapes (default true)
  --json                           print { paths, colorsUsed, traceMs, width, height } on stdout
                                   (on stderr with -o -, which writes the SVG to stdout)
  --quiet                          no summary line and no progress line on stderr
- as the input reads the image from stdin; -o - writes the document to stdout (SVG unless --output-format).`;

/** The format the -o extension names (`.pdf`, `.eps`, `.dxf`, `.svg`), or undefined. */
function formatOf(output: string): string | undefined {
  return /\.(svg|pdf|eps|dxf)$/i.exec(output)?.[1]?.toLowerCase();
}

/** `--output-format` when given (the engine validates it), else the -o extension's. */
function withFormat(options: Record<string, string>, output: string): Record<string, string> {
  if (options.output_format !== undefined) return options;
  const ext = formatOf(output);
  return ext ? { ...options, output_format: ext } : options;
}

export const vectorizeCommand: Command = {
  name: 'vectorize',
  op: 'vectorize',
  summary: 'convert raster art (PNG/JPEG/WebP) into a print-ready SVG, PDF, EPS or DXF',
  usage: USAGE,
  run(argv) {
    const binary = (options: Record<string, string>, output: string) => withFormat(options, output).output_format === 'pdf';
    return runFileVerb(argv, { verb: this.name, usage: USAGE, output: 'out.svg', binary, fields: null }, async ({ input, output, options, flags, engine, call, write, report }) => {
      const res = await engine.vectorize(input, textOptions(withFormat(options, output)), call);
      await write(res.data);
      const stats = { format: res.format, paths: res.paths, colorsUsed: res.colorsUsed, traceMs: res.traceMs, width: res.width, height: res.height };
      if (flags.json) report(stats);
      else if (!flags.quiet) process.stderr.write(`${output === '-' ? 'stdout' : output}: ${res.format}, ${res.paths} paths, ${res.colorsUsed} colours, ${res.traceMs} ms\n`);
    });
  },
};
