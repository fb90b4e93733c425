// `inkprep upscale <file> --scale 4 -o out.png`: art-aware upscaling like POST /api/v1/upscale, in-thread
// with a progress line on stderr (terminals only) for long runs; prints a JSON summary on stdout.
import { readFile, writeFile } from 'node:fs/promises';
import { DEFAULT_MAX_PIXELS, OPS, runUpscale } from '@inkprep/engine';
import { opOptions, parseArgs } from '../args.js';
import { EXIT, UsageError, progress, progressDone, reportError, type Command } from '../command.js';

const FIELDS = ['scale', 'budget', 'budget4x', 'route'];

export const upscaleCommand: Command = {
  name: 'upscale',
  summary: 'upscale artwork 2x or 4x (flat art via vector tracing, painted art via ESRGAN, else Lanczos) to a PNG',
  usage: [
    'usage: inkprep upscale <file.png|file.jpg> -o <out.png> [--scale 2|4] [options]',
    '',
    'Art-aware: flat art is traced and re-rendered as vectors, painted/photographic art goes through the',
    'ESRGAN-slim model, anything else through Lanczos-3 plus halo-free sharpening. Input above the budget is',
    'shrunk to it first (up to 4x the budget in pixels); larger input fails with image_too_large.',
    '',
    'options (scale as in POST /api/v1/upscale; the rest are for operators and benchmarks):',
    '  --scale N        2 or 4, default 4',
    '  --budget N       pixels the 2x upscaler runs at, default 1500000',
    '  --budget4x N     pixels the 4x upscaler runs at, default 750000',
    '  --route R        auto (default), vector, model or resample',
  ].join('\n'),
  async run(argv) {
    const { positionals, flags } = parseArgs(argv);
    if (flags.help) {
      process.stdout.write(this.usage + '\n');
      return EXIT.ok;
    }
    try {
      if (positionals.length !== 1) throw new UsageError(this.usage);
      if (typeof flags.output !== 'string') throw new UsageError(`missing -o <out.png>\n\n${this.usage}`);
      const options = opOptions(flags);
      for (const k of Object.keys(options)) if (!FIELDS.includes(k)) throw new UsageError(`unknown option --${k.replace(/_/g, '-')}\n\n${this.usage}`);
      const resolved = OPS.upscale.resolve(options);
      const bytes = await readFile(positionals[0]!);
      const started = performance.now();
      const out = await runUpscale(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), resolved, { maxPixels: DEFAULT_MAX_PIXELS }, (f, stage) => {
        progress(`upscale ${resolved.scale}x: ${stage} ${Math.round(f * 100)}% (${((performance.now() - started) / 1000).toFixed(1)} s)`);
      });
      progressDone();
      await writeFile(flags.output, out.png);
      process.stdout.write(JSON.stringify({
        output: flags.output, width: out.width, height: out.height, scale: out.scale, route: out.route, chosen: out.chosen,
        fallback: out.fallback, art: out.art, preShrunk: out.preShrunk, from: out.from, to: out.to,
        ms: Math.round(performance.now() - started),
      }) + '\n');
      return EXIT.ok;
    } catch (err) {
      progressDone();
      return reportError(err, true);
    }
  },
};
