// `inkprep fix <file|-> -o <out.png|-> [--fix-halftone true ...]`: repair artwork like POST /api/v1/fix.
import { runFileVerb } from '../file-verb.js';
import { PNG_ONLY } from '../output-format.js';
import { fixStatsWire } from '../../http/wire.js';
import type { Command } from '../command.js';
import { textOptions } from '@inkprep/engine';
import { cliFields, optionLines } from '../option-flags.js';

const FIELDS = cliFields('fix');

export const fixCommand: Command = {
  name: 'fix',
  op: 'fix',
  summary: 'repair artwork (despeckle, trim, resize, alpha threshold or halftone) and write a PNG with its DPI',
  usage: [
    'usage: inkprep fix <file|-> -o <out.png|-> [options]',
    '',
    'Steps run in this order: despeckle -> alpha threshold -> trim -> resize -> halftone (halftone wins).',
    'Booleans are the text true or false (a bare flag means true). Prints a JSON summary on stdout',
    '(on stderr with -o -, which writes the PNG to stdout; - as input reads stdin).',
    '',
    'options (the fields of POST /api/v1/fix):',
    ...optionLines('fix'),
  ].join('\n'),
  run(argv) {
    return runFileVerb(argv, { verb: this.name, usage: this.usage, output: 'out.png', binary: true, formats: PNG_ONLY, fields: FIELDS }, async ({ input, output, options, engine, call, write, report, warn }) => {
      const out = await engine.fix(input, textOptions(options), call);
      await write(out.data);
      report({ output, width: out.width, height: out.height, dpi: out.dpi, applied: out.applied, stats: fixStatsWire(out.stats), warnings: out.warnings });
      for (const w of out.warnings) warn(w.code, w.message);
    });
  },
};
