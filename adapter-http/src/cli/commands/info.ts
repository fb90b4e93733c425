// `inkprep info <file>`: print the decode report as JSON.
import { readFile } from 'node:fs/promises';
import { createEngine } from '@inkprep/engine';
import { parseArgs } from '../args.js';
import { EXIT, UsageError, reportError, type Command } from '../command.js';

export const infoCommand: Command = {
  name: 'info',
  summary: 'print the decode report of an image (size, format, alpha, density) as JSON',
  usage: 'usage: inkprep info <file>\n\nPrints { width, height, format, is_jpeg, has_alpha, density, ... } as JSON.',
  async run(argv) {
    const { positionals, flags } = parseArgs(argv);
    if (flags.help) {
      process.stdout.write(this.usage + '\n');
      return EXIT.ok;
    }
    const engine = createEngine({ threads: 0 });
    try {
      if (positionals.length !== 1) throw new UsageError(this.usage);
      const bytes = await readFile(positionals[0]!);
      const info = await engine.info(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      process.stdout.write(JSON.stringify(info, null, 2) + '\n');
      return EXIT.ok;
    } catch (err) {
      return reportError(err, true);
    } finally {
      await engine.close();
    }
  },
};
