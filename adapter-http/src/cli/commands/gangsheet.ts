// `inkprep gangsheet -o <sheet.pdf|sheet.png|sheet.json|-> --design a.png --design b.png --items '[...]'`: many
// designs nested on a DTF film roll, like POST /api/v1/gangsheet. Designs are `--design` flags (repeatable,
// item `design` = their order) or plain arguments after them; `--items @file.json` reads the order from a file.
// With `--underbase true` a png sheet has two plates: `-o sheet.png` writes sheet.png and sheet-white.png,
// `-o sheet.zip` (or `-o -`) the zip POST /gangsheet answers. The white layer's `--style` may be a supplier style
// (e.g. ss:39), resolved through the catalog configured from env, as `inkprep mockup` and `inkprep underbase` do.
import path from 'node:path';
import { packDesigns, textOptions } from '@inkprep/engine';
import { manifestJson, readStoredZip } from '@inkprep/engine/internals';
import { catalogFor } from '../../catalog/index.js';
import { catalogConfigFromEnv } from '../../config.js';
import { opOptions } from '../args.js';
import { UsageError, type Command } from '../command.js';
import { runEngineVerb } from '../engine-verb.js';
import { STDIO, checkOutput, readAtFile, readInput, reserveStdout, writeOutput } from '../io.js';
import { chooseOutputFormat } from '../output-format.js';
import { clearProgress } from '../progress.js';
import { cliFields, formatsOf, optionLines } from '../option-flags.js';

const FIELDS = cliFields('gangsheet');
const FORMATS = formatsOf('gangsheet', 'format');

/** `--design X` pairs out of argv (the one repeatable flag), and the rest. */
function takeDesigns(argv: readonly string[]): { designs: string[]; rest: string[] } {
  const designs: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--design' && i + 1 < argv.length) designs.push(argv[++i]!);
    else if (a.startsWith('--design=')) designs.push(a.slice('--design='.length));
    else rest.push(a);
  }
  return { designs, rest };
}

export const gangsheetCommand: Command = {
  name: 'gangsheet',
  op: 'gangsheet',
  summary: 'nest many designs on a DTF film roll and write the print-ready PDF, a PNG of the first sheet, or the manifest',
  usage: [
    'usage: inkprep gangsheet -o <sheet.pdf|sheet.png|sheet.json|-> --design <file> [--design <file> ...] --items <json|@file> [options]',
    '',
    'Designs are nested on their true outlines (alpha), never closer than --spacing-in. --format pdf (default):',
    'one page per sheet at its exact size; png: the first sheet at the art\'s resolution; json: the manifest.',
    'With --underbase true the white layer is made as inkprep underbase makes it: a White separation in the PDF;',
    'for png, -o sheet.png writes sheet.png and the white plate sheet-white.png (-o sheet.zip: both in one zip).',
    'Prints the manifest (sheets, lengths, utilisation, every placement) as JSON on stdout (stderr with -o -).',
    '',
    '  --design FILE   a design file; repeat it, item "design" is the index in that order (plain arguments also count)',
    '',
    'options (the fields of POST /api/v1/gangsheet; --items @file.json reads the list from a file):',
    ...optionLines('gangsheet'),
  ].join('\n'),
  run(argv) {
    const { designs: designFlags, rest } = takeDesigns(argv);
    return runEngineVerb(rest, { verb: this.name, usage: this.usage, fields: FIELDS }, async ({ positionals, flags, usage, startEngine }) => {
      const designs = [...designFlags, ...positionals];
      if (designs.length === 0) throw new UsageError('missing the designs (--design <file>, once per design)', usage);
      if (typeof flags.output !== 'string') throw new UsageError('missing -o <sheet.pdf> (a path, or - for stdout)', usage);
      const options = opOptions(flags);
      await readAtFile(options, 'items', usage);
      const output = flags.output;
      // `.json` is no image or document extension to the shared chooser; here it names the manifest
      const ext = path.extname(output).toLowerCase();
      const asJson = options.format === undefined && ext === '.json';
      // `.zip` names the two plates of a png sheet with the white layer (the HTTP answer's zip)
      const asZip = ext === '.zip';
      if (asZip && (options.underbase !== 'true' || (options.format !== undefined && options.format !== 'png'))) {
        throw new UsageError(`-o ${output} names a zip, written for --format png with --underbase true (the colour and white plates)`, usage);
      }
      const format = asZip ? 'png' : chooseOutputFormat(this.name, output, asJson ? 'json' : options.format, FORMATS, usage);
      options.format = format;
      const files: Uint8Array[] = [];
      for (const d of designs) files.push(await readInput(d, usage));
      const supplier_style = options.style ? await catalogFor(catalogConfigFromEnv()).garmentFor(options.style) : undefined;
      await checkOutput(output, format !== 'json', usage);
      if (output === STDIO) reserveStdout();
      const { engine, call } = startEngine();
      const out = await engine.gangsheet(packDesigns(files), textOptions({ ...options, ...(supplier_style ? { supplier_style } : {}) }), call);
      clearProgress();
      const manifest = manifestJson(out.layout);
      let whitePath: string | undefined;
      if (out.format === 'zip' && output !== STDIO && !asZip) {
        // sheet.png and sheet-white.png beside it, the same pixel grid
        const [colour, white] = readStoredZip(out.data);
        whitePath = path.join(path.dirname(output), `${path.basename(output, path.extname(output))}-white${path.extname(output) || '.png'}`);
        await writeOutput(output, colour!.data);
        await writeOutput(whitePath, white!.data);
      } else await writeOutput(output, out.requested === 'json' ? JSON.stringify(manifest) + '\n' : out.data);
      const summary = JSON.stringify({ output, ...(whitePath ? { white_output: whitePath } : {}), format: out.requested, ...(out.pngDpi !== undefined ? { dpi: out.pngDpi } : {}), ...manifest }) + '\n';
      // stdout carries the sheet with -o -: the summary goes to stderr then
      (output === STDIO ? process.stderr : process.stdout).write(summary);
      if (flags.quiet !== true) for (const w of out.layout.warnings) process.stderr.write(JSON.stringify({ warning: w.message, code: w.code }) + '\n');
    });
  },
};
