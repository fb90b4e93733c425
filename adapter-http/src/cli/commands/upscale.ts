// `inkprep upscale <file|-> --scale 4 -o <out.png|->`: art-aware upscaling like POST /api/v1/upscale;
// prints a JSON summary (on stderr when the PNG goes to stdout).
import { runFileVerb } from '../file-verb.js';
import type { Command } from '../command.js';
import { textOptions } from '@inkprep/engine';
import { cliFields, optionLines } from '../option-flags.js';

const FIELDS = cliFields('upscale');

export const upscaleCommand: Command = {
  name: 'upscale',
  op: 'upscale',
  summary: 'upscale artwork 2x or 4x (flat art via vector tracing, painted art and photos via ESRGAN, else Lanczos) to a PNG',
  usage: [
    'usage: inkprep upscale <file.png|file.jpg|-> -o <out.png|-> [--scale 2|4] [options]',
    '',
    'Art-aware: flat art is traced and re-rendered as vectors, painted/photographic art goes through ESRGAN',
    '(medium, or slim for large 2x input; at 4x averaged with Lanczos-3 + sharpen), anything else through',
    'Lanczos-3 plus halo-free sharpening. Input above the budget is',
    'shrunk to it first (up to 4x the budget in pixels); larger input fails with image_too_large.',
    '',
    'options (scale as in POST /api/v1/upscale; the rest are for operators and benchmarks):',
    ...optionLines('upscale'),
  ].join('\n'),
  run(argv) {
    return runFileVerb(argv, { verb: this.name, usage: this.usage, output: 'out.png', binary: true, fields: FIELDS }, async ({ input, output, options, engine, call, write, report }) => {
      const started = performance.now();
      const out = await engine.upscale(input, textOptions(options), call);
      await write(out.data);
      report({
        output, width: out.width, height: out.height, scale: out.scale, route: out.route, chosen: out.chosen,
        fallback: out.fallback, patched: out.patched, model: out.model, art: out.art, preShrunk: out.preShrunk, from: out.from, to: out.to, effectiveScale: out.effectiveScale,
        ms: Math.round(performance.now() - started),
      });
    });
  },
};
