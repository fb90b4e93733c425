// `inkprep vectorize <file|-> -o <out.svg|-> [--colors auto] [--detail balanced] ...`: raster art -> SVG.
import { runFileVerb } from '../file-verb.js';
import type { Command } from '../command.js';
import { textOptions } from '@inkprep/engine';

const USAGE = `usage: inkprep vectorize <in.png|jpg|webp|-> -o <out.svg|-> [options]

Options (same names and values as POST /api/v1/vectorize):
  --colors auto|1-20|unlimited    palette: auto (default) picks the smallest true palette, N is a maximum
  --detail smoother|balanced|precise
  --shape-style stacked|cutout
  --speck-size 0-16                merge blobs smaller than this many px across (default 4)
  --edge-cleanup true|false        resolve semi-transparent edge pixels (default true)
  --smooth-bands true|false        only with --colors unlimited (default true)
  --gradients true|false           allow gradient fills on shaded art (default false)
  --print-width-inches N           write width/height in inches
  --json                           print { paths, colorsUsed, traceMs, width, height } on stdout
                                   (on stderr with -o -, which writes the SVG to stdout)
  --quiet                          no summary line and no progress line on stderr
- as the input reads the image from stdin.`;

export const vectorizeCommand: Command = {
  name: 'vectorize',
  summary: 'convert raster art (PNG/JPEG/WebP) into a print-ready SVG',
  usage: USAGE,
  run(argv) {
    return runFileVerb(argv, { verb: this.name, usage: USAGE, output: 'out.svg', fields: null }, async ({ input, output, options, flags, engine, call, write, report }) => {
      const res = await engine.vectorize(input, textOptions(options), call);
      await write(res.svg);
      const stats = { paths: res.paths, colorsUsed: res.colorsUsed, traceMs: res.traceMs, width: res.width, height: res.height };
      if (flags.json) report(stats);
      else if (!flags.quiet) process.stderr.write(`${output === '-' ? 'stdout' : output}: ${res.paths} paths, ${res.colorsUsed} colours, ${res.traceMs} ms\n`);
    });
  },
};
