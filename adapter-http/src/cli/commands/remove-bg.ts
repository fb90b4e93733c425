// `inkprep remove-bg <in.png|in.jpg|-> -o <out.png|->`: background removal like POST /api/v1/remove-bg.
import { REMOVE_BG_MAX_PIXELS, textOptions } from '@inkprep/engine';
import { runFileVerb } from '../file-verb.js';
import { PNG_ONLY } from '../output-format.js';
import type { Command } from '../command.js';
import { cliFields, optionLines } from '../option-flags.js';

export const removeBgCommand: Command = {
  name: 'remove-bg',
  op: 'removeBg',
  summary: 'remove the background of artwork (PNG or JPEG, at most 25 MP) and write a transparent PNG',
  usage: [
    'usage: inkprep remove-bg <in.png|in.jpg|-> -o <out.png|-> [options]',
    '',
    'Writes a PNG with straight alpha, same size as the input, and prints',
    '{ output, width, height, method, warnings, stats } as JSON on stdout (method and warnings are the',
    'X-Method and X-Warnings headers of the API; on stderr with -o -, which writes the PNG to stdout).',
    '',
    'options:',
    ...optionLines('removeBg'),
    'A model named by --model takes its input size, mean, std and output mapping from INKPREP_SEGMENTATION_SIZE/_MEAN/_STD/_OUTPUT.',
  ].join('\n'),
  run(argv) {
    const spec = { verb: this.name, usage: this.usage, output: 'out.png', binary: true, formats: PNG_ONLY, fields: cliFields('removeBg'), engine: { maxPixels: REMOVE_BG_MAX_PIXELS } };
    return runFileVerb(argv, spec, async ({ input, output, options, engine, call, write, report, warn }) => {
      // Flags are text; the op validates the values (invalid_option naming the field).
      const out = await engine.removeBg(input, textOptions(options), call);
      await write(out.data);
      report({ output, width: out.width, height: out.height, method: out.method, warnings: out.warnings, stats: out.stats });
      // Warnings are `<code>: <text>` sentences (the X-Warnings header).
      for (const w of out.warnings) {
        const at = w.indexOf(': ');
        warn(at > 0 ? w.slice(0, at) : 'warning', at > 0 ? w.slice(at + 2) : w);
      }
    });
  },
};
