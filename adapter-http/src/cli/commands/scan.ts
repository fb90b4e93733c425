// `inkprep scan <file> [--print-width-inches 12]`: print the scan report (spec 2.2) as JSON.
import { readFile } from 'node:fs/promises';
import { createEngine } from '@inkprep/engine';
import { opOptions, parseArgs } from '../args.js';
import { EXIT, UsageError, reportError, type Command } from '../command.js';

const FIELDS = ['print_width_inches'];

export const scanCommand: Command = {
  name: 'scan',
  summary: 'print-readiness report (DPI, background, soft edges, fringe, specks, issues, suggested fixes) as JSON',
  usage: [
    'usage: inkprep scan <file> [--print-width-inches 12]',
    '',
    'Prints the scan report of POST /api/v1/scan as JSON: dpi at the print width, stated_dpi, background,',
    'alpha { soft_rim_px, semi_transparent_percent, has_fringe, ... }, transparency_fix { recommended, reason },',
    'ink_coverage_percent, speck_count, is_jpeg, edge_quality, issues and suggestions (POST /fix fields).',
    '',
    'options:',
    '  --print-width-inches N   target print width in inches (0.1 to 500, default 12)',
  ].join('\n'),
  async run(argv) {
    const { positionals, flags } = parseArgs(argv);
    if (flags.help) {
      process.stdout.write(this.usage + '\n');
      return EXIT.ok;
    }
    const engine = createEngine({ threads: 0 });
    try {
      if (positionals.length !== 1) throw new UsageError(this.usage);
      const options = opOptions(flags);
      for (const k of Object.keys(options)) if (!FIELDS.includes(k)) throw new UsageError(`unknown option --${k.replace(/_/g, '-')}\n\n${this.usage}`);
      const bytes = await readFile(positionals[0]!);
      const report = await engine.scan(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), options);
      process.stdout.write(JSON.stringify(report, null, 2) + '\n');
      return EXIT.ok;
    } catch (err) {
      return reportError(err, true);
    } finally {
      await engine.close();
    }
  },
};
