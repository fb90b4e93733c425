// `inkprep vectorize <file> -o out.svg [--colors auto] [--detail balanced] ...`: raster art -> SVG.
import { readFile, writeFile } from 'node:fs/promises';
import { createEngine } from '@inkprep/engine';
import { opOptions, parseArgs } from '../args.js';
import { EXIT, UsageError, reportError, type Command } from '../command.js';

const USAGE = `usage: inkprep vectorize <in.png|jpg|webp> -o <out.svg> [options]

Options (same names and values as POST /api/v1/vectorize):
  --colors auto|1-20|unlimited    palette: auto (default) picks the smallest true palette, N is a maximum
  --detail smoother|balanced|precise
  --shape-style stacked|cutout
  --speck-size 0-16                merge blobs smaller than this many px across (default 4)
  --edge-cleanup true|false        resolve semi-transparent edge pixels (default true)
  --smooth-bands true|false        only with --colors unlimited (default true)
  --gradients true|false           allow gradient fills on shaded art (default false)
  --print-width-inches N           write width/height in inches
  --json                           print { paths, colorsUsed, traceMs, width, height } on stdout`;

export const vectorizeCommand: Command = {
  name: 'vectorize',
  summary: 'convert raster art (PNG/JPEG/WebP) into a print-ready SVG',
  usage: USAGE,
  async run(argv) {
    const { positionals, flags } = parseArgs(argv);
    if (flags.help) {
      process.stdout.write(USAGE + '\n');
      return EXIT.ok;
    }
    const engine = createEngine({ threads: 0 });
    try {
      if (positionals.length !== 1 || typeof flags.output !== 'string') throw new UsageError(USAGE);
      const bytes = await readFile(positionals[0]!);
      const res = await engine.vectorize(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), opOptions(flags));
      await writeFile(flags.output, res.svg);
      const stats = { paths: res.paths, colorsUsed: res.colorsUsed, traceMs: res.traceMs, width: res.width, height: res.height };
      if (flags.json) process.stdout.write(JSON.stringify(stats) + '\n');
      else if (!flags.quiet) process.stderr.write(`${flags.output}: ${res.paths} paths, ${res.colorsUsed} colours, ${res.traceMs} ms\n`);
      return EXIT.ok;
    } catch (err) {
      return reportError(err, !!flags.json);
    } finally {
      await engine.close();
    }
  },
};
