// `inkprep underbase <file|-> -o <out.pdf|out.png|out.json|-> [--garment-color '#000000' ...]`: the white plate and
// separation file like POST /api/v1/underbase. A supplier `--style` (e.g. ss:39) is resolved through the catalog
// configured from env (INKPREP_SS_ACCOUNT, INKPREP_SS_API_KEY), as `inkprep mockup` does.
import { catalogFor } from '../../catalog/index.js';
import { catalogConfigFromEnv } from '../../config.js';
import { runFileVerb } from '../file-verb.js';
import { underbaseWire } from '../../http/wire.js';
import type { Command } from '../command.js';
import { textOptions } from '@inkprep/engine';
import { cliFields, formatsOf, optionLines } from '../option-flags.js';

const FIELDS = cliFields('underbase');
const FORMATS = formatsOf('underbase', 'format');

export const underbaseCommand: Command = {
  name: 'underbase',
  op: 'underbase',
  summary: 'make the white underbase (choke, knock-out) and write a separation PDF, the white plate PNG, or JSON',
  usage: [
    'usage: inkprep underbase <file|-> -o <out.pdf|out.png|out.json|-> [options]',
    '',
    '--format pdf (default): one page at the print size, the colour image and the white as a spot colour;',
    'png: the white plate as 8-bit grey; json: both plates in base64 and the numbers. Prints a JSON summary',
    '(white and colour ink area, coverage, warnings) on stdout (on stderr with -o -).',
    '',
    'options (the fields of POST /api/v1/underbase):',
    ...optionLines('underbase'),
  ].join('\n'),
  run(argv) {
    return runFileVerb(argv, { verb: this.name, usage: this.usage, output: 'out.pdf', binary: (format: string) => format !== 'json', formats: FORMATS, fields: FIELDS }, async ({ input, output, options, engine, call, write, report, warn }) => {
      const supplier_style = options.style ? await catalogFor(catalogConfigFromEnv()).garmentFor(options.style) : undefined;
      const out = await engine.underbase(input, textOptions({ ...options, ...(supplier_style ? { supplier_style } : {}) }), call);
      if (out.requested === 'json') await write(new TextEncoder().encode(JSON.stringify(underbaseWire(out)) + '\n'));
      else await write(out.data);
      report({ output, format: out.requested, ...underbaseWire(out, false) });
      for (const w of out.warnings) warn(w.code, w.message);
    });
  },
};
