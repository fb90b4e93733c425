// `inkprep upscale <file|-> --scale 4 -o <out.png|->`: art-aware upscaling like POST /api/v1/upscale;
// prints a JSON summary (on stderr when the PNG goes to stdout) and a line for people on stderr that says
// when the result is not what was asked (a pre-shrunk input's smaller effective scale, a route fallback) and why.
import { runFileVerb } from '../file-verb.js';
import { PNG_ONLY } from '../output-format.js';
import type { Command } from '../command.js';
import { textOptions, type UpscaleResult } from '@inkprep/engine';
// Internal: the default budgets, named in the summary line when the input was shrunk to one.
import { DEFAULT_BUDGET, DEFAULT_BUDGET_4X } from '@inkprep/engine/internals';
import { cliFields, optionLines } from '../option-flags.js';

const FIELDS = cliFields('upscale');

/** `4096000` -> `4.1 MP`, `750000` -> `0.75 MP`, `480` -> `480 px`. */
function megapixels(pixels: number): string {
  return pixels < 100_000 ? `${pixels} px` : `${Number((pixels / 1e6).toPrecision(pixels < 1e6 ? 2 : 3))} MP`;
}

/**
 * The summary line: what was written and, when the result differs from the request, how and why, e.g.
 * `out.png: 3098x1936 PNG, model route; scale 2x requested, 1.21x effective: the 2560x1600 input (4.1 MP) was
 * first shrunk to 1549x968 to fit the 2x upscale budget of 1.5 MP (--budget)`.
 */
export function upscaleSummaryLine(output: string, out: UpscaleResult, options: Readonly<Record<string, string>>): string {
  const parts = [`${output === '-' ? 'stdout' : output}: ${out.width}x${out.height} PNG, ${out.route} route`];
  if (out.effectiveScale !== out.scale) {
    const flag = out.scale === 4 ? 'budget4x' : 'budget';
    const budget = Number(options[flag] ?? (out.scale === 4 ? DEFAULT_BUDGET_4X : DEFAULT_BUDGET));
    const why = out.preShrunk
      ? `: the ${out.from.width}x${out.from.height} input (${megapixels(out.from.width * out.from.height)}) was first shrunk to ${out.to.width}x${out.to.height} to fit the ${out.scale}x upscale budget of ${megapixels(budget)} (--${flag})`
      : '';
    parts.push(`scale ${out.scale}x requested, ${out.effectiveScale}x effective${why}`);
  }
  if (out.fallback) parts.push(`${out.chosen} route chosen, ${out.route} used: ${out.fallback}`);
  return parts.join('; ');
}

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
    ...optionLines('upscale', {}, [
      ['--quiet', 'no summary line, warnings or progress on stderr'],
      ['--progress', 'when stderr is not a terminal, also a progress line as each stage begins (else one every 10 s)'],
    ]),
    '',
    'A line on stderr says what was written and, when the effective scale differs from --scale (input shrunk to',
    'the budget first), by how much and why; the JSON summary has the same in preShrunk, from, to, effectiveScale.',
  ].join('\n'),
  run(argv) {
    return runFileVerb(argv, { verb: this.name, usage: this.usage, output: 'out.png', binary: true, formats: PNG_ONLY, fields: FIELDS }, async ({ input, output, options, engine, call, write, report, say }) => {
      const started = performance.now();
      const out = await engine.upscale(input, textOptions(options), call);
      await write(out.data);
      report({
        output, width: out.width, height: out.height, scale: out.scale, route: out.route, chosen: out.chosen,
        fallback: out.fallback, patched: out.patched, model: out.model, art: out.art, preShrunk: out.preShrunk, from: out.from, to: out.to, effectiveScale: out.effectiveScale,
        ms: Math.round(performance.now() - started),
      });
      say(upscaleSummaryLine(output, out, options));
    });
  },
};
