// `inkprep mockup <design|-> --style own:classic-tee --color navy --placement full-front -o <out.png|->`: render a
// mockup like POST /api/v1/mockup (same field names). Supplier styles (e.g. ss:39) are resolved through the
// catalog configured from env (INKPREP_SS_ACCOUNT, INKPREP_SS_API_KEY). Prints the 2.9 JSON without the image.
import { catalogFromEnv } from '../../catalog/index.js';
import { runFileVerb } from '../file-verb.js';
import { mockupWire } from '../../http/wire.js';
import type { Command } from '../command.js';
import { textOptions } from '@inkprep/engine';

const FIELDS = [
  'style', 'color', 'placement', 'view', 'print_width_in', 'top_in', 'offset_x_in', 'size', 'fabric', 'output_size',
  'frame', 'format', 'template_id', 'garment', 'placement_id', 'scale',
];

export const mockupCommand: Command = {
  name: 'mockup',
  op: 'mockup',
  summary: 'render a design on a garment at true size (or on a legacy template) and write a PNG or JPEG',
  usage: [
    'usage: inkprep mockup <design|-> -o <out.png|out.jpg|-> [options]',
    '',
    'true-to-size (with --style):',
    '  --style KEY            own:classic-tee, own:womens-tee, own:long-sleeve-tee, own:hoodie, or a supplier key',
    '  --color C              colour id or name (default black, else the first colour)',
    '  --placement P          left-chest, right-chest, center-chest, full-front, oversized, back-neck, upper-back, full-back',
    '  --view front|back      default the placement\'s side',
    '  --print-width-in N     print width in inches (default the placement\'s; clamped to its maximum)',
    '  --top-in N             inches from the collar seam to the top of the design',
    '  --offset-x-in N        inches from the centre line, positive = right of the photo',
    '  --size S               garment size shown at true scale (its chest spec)',
    'legacy (without --style): --template-id ID | --garment NAME, --placement-id ID | --placement NAME, --scale 0.1-2',
    'both: --fabric 0-1|false (default 0.8), --output-size 400-4000 (default 2000), --frame native|square, --format png|jpeg',
    '',
    'The format follows the -o extension unless --format is given (png for -o -, which writes the image to stdout',
    'and the JSON on stderr). - as the design reads it from stdin.',
  ].join('\n'),
  run(argv) {
    return runFileVerb(argv, { verb: this.name, usage: this.usage, output: 'out.png', binary: true, fields: FIELDS }, async ({ input, output, options, engine, call, write, report, warn }) => {
      if (!options.format && /\.jpe?g$/i.test(output)) options.format = 'jpeg';
      const supplier_style = options.style ? await catalogFromEnv().garmentFor(options.style) : undefined;
      const r = await engine.mockup(input, textOptions({ ...options, ...(supplier_style ? { supplier_style } : {}) }), call);
      await write(r.data);
      report({
        output, ...mockupWire(r),
        image: { content_type: r.contentType, width: r.width, height: r.height },
      }, true);
      for (const w of r.warnings) warn(w.code, w.message);
    });
  },
};
