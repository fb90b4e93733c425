// `inkprep remove-bg <in.png|in.jpg> -o out.png`: background removal like POST /api/v1/remove-bg.
import { readFile, writeFile } from 'node:fs/promises';
import { createEngine, REMOVE_BG_MAX_PIXELS, type RemoveBgBackend, type RemoveBgOptions } from '@inkprep/engine';
import { parseArgs } from '../args.js';
import { EXIT, UsageError, reportError, type Command } from '../command.js';

export const removeBgCommand: Command = {
  name: 'remove-bg',
  summary: 'remove the background of artwork (PNG or JPEG, at most 25 MP) and write a transparent PNG',
  usage: [
    'usage: inkprep remove-bg <in.png|in.jpg> -o <out.png> [options]',
    '',
    'Writes a PNG with straight alpha, same size as the input, and prints',
    '{ output, width, height, method, warnings, stats } as JSON on stdout (method and warnings are the',
    'X-Method and X-Warnings headers of the API).',
    '',
    'options:',
    '  --backend auto|matte|model   default auto: artwork matte; the segmentation model only for photo-like',
    '                               inputs when one is configured',
    '  --model <file.onnx>          segmentation model (default: env INKPREP_SEGMENTATION_MODEL); input size,',
    '                               mean, std, output mapping from INKPREP_SEGMENTATION_SIZE/_MEAN/_STD/_OUTPUT',
    '  --enclosed remove|keep       default remove: enclosed regions of the background colour (letter counters,',
    '                               but also white details of art on white) become transparent; keep: only the',
    '                               background connected to the border is removed',
  ].join('\n'),
  async run(argv) {
    const { positionals, flags } = parseArgs(argv);
    if (flags.help) {
      process.stdout.write(this.usage + '\n');
      return EXIT.ok;
    }
    const engine = createEngine({ threads: 0, maxPixels: REMOVE_BG_MAX_PIXELS });
    try {
      if (positionals.length !== 1) throw new UsageError(this.usage);
      if (typeof flags.output !== 'string') throw new UsageError(`missing -o <out.png>\n\n${this.usage}`);
      for (const k of Object.keys(flags)) {
        if (!['output', 'help', 'json', 'quiet', 'backend', 'model', 'enclosed'].includes(k)) throw new UsageError(`unknown option --${k.replace(/_/g, '-')}\n\n${this.usage}`);
      }
      const options: RemoveBgOptions = {};
      // The op validates the value (invalid_option naming `backend`).
      if (typeof flags.backend === 'string') options.backend = flags.backend as RemoveBgBackend;
      if (typeof flags.model === 'string') options.model = flags.model;
      if (typeof flags.enclosed === 'string') options.enclosed = flags.enclosed as 'remove' | 'keep';
      const bytes = await readFile(positionals[0]!);
      const out = await engine.removeBg(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), options);
      await writeFile(flags.output, out.png);
      process.stdout.write(JSON.stringify({ output: flags.output, width: out.width, height: out.height, method: out.method, warnings: out.warnings, stats: out.stats }) + '\n');
      if (!flags.quiet) for (const w of out.warnings) process.stderr.write(`inkprep: warning: ${w}\n`);
      return EXIT.ok;
    } catch (err) {
      return reportError(err, true);
    } finally {
      await engine.close();
    }
  },
};
