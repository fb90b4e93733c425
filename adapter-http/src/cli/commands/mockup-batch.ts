// `inkprep mockup-batch <design|-> -o <folder> --items <json|@file.json> [shared options]`: one design on many
// garments, like POST /api/v1/mockup/batch, with the local engine (the design decoded once). Each mockup is
// written to the folder as `<NN>-<style>-<color>-<placement>.<png|jpg>` (NN = the item's index); the answer's
// JSON (every mockup with its file, print numbers and warnings) goes to stdout.
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { textOptions, type SupplierGarment } from '@inkprep/engine';
import { catalogFor } from '../../catalog/index.js';
import { catalogConfigFromEnv } from '../../config.js';
import { mockupWire } from '../../http/wire.js';
import { opOptions } from '../args.js';
import { OutputError, UsageError, type Command } from '../command.js';
import { runEngineVerb } from '../engine-verb.js';
import { readAtFile, readInput, writeOutput } from '../io.js';
import { clearProgress } from '../progress.js';
import { cliFields, optionLines } from '../option-flags.js';

const FIELDS = cliFields('mockupBatch');

/** A file name part: lower-case letters, digits and hyphens. */
const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');

/** The supplier styles the list names (the shared --style included), from the configured catalog. */
async function supplierStyles(options: Record<string, string>): Promise<Record<string, SupplierGarment>> {
  let items: unknown;
  try {
    items = JSON.parse(options.items ?? '');
  } catch {
    return {}; // the engine names the mistake
  }
  if (!Array.isArray(items)) return {};
  const keys = new Set<string>();
  for (const it of items) {
    const s = it && typeof it === 'object' && typeof (it as { style?: unknown }).style === 'string' ? (it as { style: string }).style : options.style;
    if (s && s.includes(':') && !/^own:/i.test(s)) keys.add(s);
  }
  const out: Record<string, SupplierGarment> = {};
  for (const k of keys) {
    const g = await catalogFor(catalogConfigFromEnv()).garmentFor(k);
    if (g) out[k] = g;
  }
  return out;
}

export const mockupBatchCommand: Command = {
  name: 'mockup-batch',
  op: 'mockupBatch',
  summary: 'render one design on many garments (colours, styles, placements) and write one image per item into a folder',
  usage: [
    'usage: inkprep mockup-batch <design|-> -o <folder> --items <json|@file.json> [options]',
    '',
    'The fields of POST /api/v1/mockup/batch. --items is the JSON list of mockups (or @file.json), each item with',
    'style, color, placement, view, size, print_width_in, top_in, offset_x_in; what an item leaves out comes from',
    'the option of that name below (e.g. --style own:classic-tee --items \'[{"color":"black"},{"color":"white"}]\').',
    'Each mockup is written to the folder (created if missing) as <NN>-<style>-<color>-<placement>.png (.jpg with',
    '--format jpeg); the JSON listing every file with its print numbers and warnings goes to stdout.',
    '',
    ...optionLines('mockupBatch'),
  ].join('\n'),
  run(argv) {
    return runEngineVerb(argv, { verb: this.name, usage: this.usage, fields: FIELDS }, async ({ positionals, flags, usage, startEngine }) => {
      if (positionals.length !== 1) throw new UsageError('expected one design file (or - for stdin)', usage);
      if (typeof flags.output !== 'string' || flags.output === '-') throw new UsageError('missing -o <folder> (the images are written there)', usage);
      const options = opOptions(flags);
      await readAtFile(options, 'items', usage);
      const folder = flags.output;
      const input = await readInput(positionals[0]!, usage);
      try {
        await mkdir(folder, { recursive: true });
      } catch (err) {
        throw new OutputError(`Cannot create the output folder ${folder}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, folder, { cause: err });
      }
      if (!(await stat(folder)).isDirectory()) throw new OutputError(`Output path is not a folder: ${folder}`, folder);
      const supplier_styles = await supplierStyles(options);
      const { engine, call } = startEngine();
      const out = await engine.mockupBatch(input, textOptions({ ...options, supplier_styles }), call);
      clearProgress();
      const images = [];
      for (const [i, r] of out.images.entries()) {
        const file = path.join(folder, `${String(i).padStart(2, '0')}-${slug(r.garment.key)}-${slug(r.garment.color.id)}-${slug(r.placement)}.${r.format === 'jpeg' ? 'jpg' : 'png'}`);
        await writeOutput(file, r.data);
        images.push({ index: i, file, ...mockupWire(r), image: { content_type: r.contentType, width: r.width, height: r.height } });
      }
      process.stdout.write(JSON.stringify({ count: images.length, images }) + '\n');
      if (flags.quiet !== true) {
        for (const img of images) for (const w of img.warnings) process.stderr.write(JSON.stringify({ warning: w.message, code: w.code, item: img.index }) + '\n');
      }
    });
  },
};
