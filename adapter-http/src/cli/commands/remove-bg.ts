// `inkprep remove-bg <in.png|in.jpg|-> -o <out.png|->`: background removal like POST /api/v1/remove-bg.
import { REMOVE_BG_MAX_PIXELS, textOptions } from '@inkprep/engine';
import { runFileVerb } from '../file-verb.js';
import type { Command } from '../command.js';

export const removeBgCommand: Command = {
  name: 'remove-bg',
  summary: 'remove the background of artwork (PNG or JPEG, at most 25 MP) and write a transparent PNG',
  usage: [
    'usage: inkprep remove-bg <in.png|in.jpg|-> -o <out.png|-> [options]',
    '',
    'Writes a PNG with straight alpha, same size as the input, and prints',
    '{ output, width, height, method, warnings, stats } as JSON on stdout (method and warnings are the',
    'X-Method and X-Warnings headers of the API; on stderr with -o -, which writes the PNG to stdout).',
    '',
    'options:',
    '  --backend auto|matte|model   default auto: artwork matte for art; photos and shaded shots go to the',
    '                               segmentation model, or fail with not_separable (exit 1) when none can run;',
    '                               matte: always the matte (a photo gets a warning)',
    '  --model <file.onnx>          segmentation model (default: env INKPREP_SEGMENTATION_MODEL); input size,',
    '                               mean, std, output mapping from INKPREP_SEGMENTATION_SIZE/_MEAN/_STD/_OUTPUT',
    '  --enclosed remove|keep       default remove: enclosed regions of the background colour (letter counters,',
    '                               but also white details of art on white) become transparent; keep: only the',
    '                               background connected to the border is removed',
  ].join('\n'),
  run(argv) {
    const spec = { verb: this.name, usage: this.usage, output: 'out.png', binary: true, fields: ['backend', 'model', 'enclosed'], engine: { maxPixels: REMOVE_BG_MAX_PIXELS } };
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
