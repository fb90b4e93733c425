// `inkprep info <file|->`: print the decode report as JSON.
import { runFileVerb } from '../file-verb.js';
import { decodeInfoWire } from '../../http/wire.js';
import type { Command } from '../command.js';

export const infoCommand: Command = {
  name: 'info',
  op: 'info',
  summary: 'print the decode report of an image (size, format, alpha, density) as JSON',
  usage: 'usage: inkprep info <file|->\n\nPrints { width, height, format, is_jpeg, has_alpha, density, ... } as JSON. - reads the image from stdin.',
  run(argv) {
    return runFileVerb(argv, { verb: this.name, usage: this.usage, fields: [] }, async ({ input, engine, call, report }) => {
      report(decodeInfoWire(await engine.info(input, {}, call)), true);
    });
  },
};
