// `inkprep fix <file|-> -o <out.png|-> [--fix-halftone true ...]`: repair artwork like POST /api/v1/fix.
import { runFileVerb } from '../file-verb.js';
import type { Command } from '../command.js';
import { textOptions } from '@inkprep/engine';

const FIELDS = [
  'fix_alpha_threshold', 'alpha_threshold', 'fix_halftone', 'halftone_lpi', 'print_width_inches',
  'fix_trim', 'fix_despeckle', 'resize_width_px', 'resize_height_px',
];

export const fixCommand: Command = {
  name: 'fix',
  summary: 'repair artwork (despeckle, trim, resize, alpha threshold or halftone) and write a PNG with its DPI',
  usage: [
    'usage: inkprep fix <file|-> -o <out.png|-> [options]',
    '',
    'Steps run in this order: despeckle -> alpha threshold -> trim -> resize -> halftone (halftone wins).',
    'Booleans are the text true or false (a bare flag means true). Prints a JSON summary on stdout',
    '(on stderr with -o -, which writes the PNG to stdout; - as input reads stdin).',
    '',
    'options (same names as POST /api/v1/fix):',
    '  --fix-alpha-threshold true   cut semi-transparent edges at --alpha-threshold and remove matte colour',
    '  --alpha-threshold N          0 to 255, default 144 (alpha below -> transparent, at or above -> opaque)',
    '  --fix-halftone true          turn semi-transparent pixels into opaque halftone dots',
    '  --halftone-lpi N             15 to 65 lines per inch, default 35',
    '  --print-width-inches N       print width of the input; its DPI = width px / N (default: output 300 DPI)',
    '  --fix-trim true              crop fully transparent borders',
    '  --fix-despeckle true         remove specks, pinholes and single-pixel colour noise',
    '  --resize-width-px N          output width (aspect kept unless --resize-height-px is given too)',
    '  --resize-height-px N         output height',
  ].join('\n'),
  run(argv) {
    return runFileVerb(argv, { verb: this.name, usage: this.usage, output: 'out.png', binary: true, fields: FIELDS }, async ({ input, output, options, engine, call, write, report, warn }) => {
      const out = await engine.fix(input, textOptions(options), call);
      await write(out.data);
      report({ output, width: out.width, height: out.height, dpi: out.dpi, applied: out.applied, stats: out.stats, warnings: out.warnings });
      for (const w of out.warnings) warn(w.code, w.message);
    });
  },
};
