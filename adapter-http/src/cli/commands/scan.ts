// `inkprep scan <file|-> [--print-width-inches 12]`: print the scan report (spec 2.2) as JSON.
import { runFileVerb } from '../file-verb.js';
import { scanReportWire } from '../../http/wire.js';
import type { Command } from '../command.js';
import { textOptions } from '@inkprep/engine';
import { cliFields, optionLines } from '../option-flags.js';

const FIELDS = cliFields('scan');

export const scanCommand: Command = {
  name: 'scan',
  op: 'scan',
  summary: 'print-readiness report (DPI, background, soft edges, fringe, specks, issues, suggested fixes) as JSON',
  usage: [
    'usage: inkprep scan <file|-> [--print-width-inches 12]',
    '',
    'Prints the scan report of POST /api/v1/scan as JSON: dpi at the print width, stated_dpi, background,',
    'alpha { soft_rim_px, semi_transparent_percent, has_fringe, ... }, transparency_fix { recommended, reason },',
    'ink_coverage_percent, speck_count, is_jpeg, edge_quality, issues and suggestions (POST /fix fields).',
    '- reads the image from stdin.',
    '',
    'options (the fields of POST /api/v1/scan):',
    ...optionLines('scan'),
  ].join('\n'),
  run(argv) {
    return runFileVerb(argv, { verb: this.name, usage: this.usage, fields: FIELDS }, async ({ input, options, engine, call, report }) => {
      report(scanReportWire(await engine.scan(input, textOptions(options), call)), true);
    });
  },
};
