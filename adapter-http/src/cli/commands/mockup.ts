// `inkprep mockup <design|-> --style own:classic-tee --color navy --placement full-front -o <out.png|->`: render a
// mockup like POST /api/v1/mockup (same field names). Supplier styles (e.g. ss:39) are resolved through the
// catalog configured from env (INKPREP_SS_ACCOUNT, INKPREP_SS_API_KEY). Prints the 2.9 JSON without the image.
import { catalogFor } from '../../catalog/index.js';
import { catalogConfigFromEnv } from '../../config.js';
import { runFileVerb } from '../file-verb.js';
import { mockupWire } from '../../http/wire.js';
import type { Command } from '../command.js';
import { textOptions } from '@inkprep/engine';
import { cliFields, formatsOf, optionLines } from '../option-flags.js';

const FIELDS = cliFields('mockup');
const FORMATS = formatsOf('mockup', 'format');

export const mockupCommand: Command = {
  name: 'mockup',
  op: 'mockup',
  summary: 'render a design on a garment at true size (or on a legacy template) and write a PNG or JPEG',
  usage: [
    'usage: inkprep mockup <design|-> -o <out.png|out.jpg|-> [options]',
    '',
    'True-to-size with --style (placement, view, print-width-in, top-in, offset-x-in, size, color); the legacy',
    'templates without it (template-id or garment, placement-id or placement, scale). Options (the fields of',
    'POST /api/v1/mockup):',
    ...optionLines('mockup', { format: 'default: from the -o extension, else png' }),
    '',
    'The format follows the -o extension (.png, .jpg, .jpeg) unless --format is given (png for -o -, which writes',
    'the image to stdout and the JSON on stderr); an extension that names another format, or disagrees with',
    '--format, is a usage error (exit 2). - as the design reads it from stdin. --quiet: no warnings or progress;',
    '--progress: when stderr is not a terminal, also a progress line as each stage begins.',
  ].join('\n'),
  run(argv) {
    return runFileVerb(argv, { verb: this.name, usage: this.usage, output: 'out.png', binary: true, formats: FORMATS, fields: FIELDS }, async ({ input, output, options, engine, call, write, report, warn }) => {
      const supplier_style = options.style ? await catalogFor(catalogConfigFromEnv()).garmentFor(options.style) : undefined;
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
