// Which format a file verb writes, and the -o name checked against it before any work: the -o extension
// picks the format when the verb can write it and no format flag says otherwise; an extension naming a
// format the verb cannot write, or one that disagrees with the format flag, is a usage error naming both
// (`vectorize -o x.png` wrote an SVG into x.png, `fix -o x.svg` a PNG). `-o -` (stdout) and names whose
// extension is no image or document format (`out`, `out.tmp`) keep the flag's format or the default.
import path from 'node:path';
import { UsageError } from './command.js';
import { flagText } from './known-flags.js';
import { STDIO } from './io.js';

/** The formats a verb writes. */
export interface OutputFormats {
  /** The op's format option, when it has one (vectorize `output_format`, mockup `format`). */
  field?: string;
  /** The option's values (the formats written), the default first. */
  values: readonly string[];
}

/** Extensions that name an image or document format, and the format's value in the option tables. */
const EXTENSIONS: Readonly<Record<string, string>> = {
  svg: 'svg', svgz: 'svgz', pdf: 'pdf', eps: 'eps', ps: 'ps', ai: 'ai', dxf: 'dxf',
  png: 'png', jpg: 'jpeg', jpeg: 'jpeg', jpe: 'jpeg', webp: 'webp', gif: 'gif', tif: 'tiff', tiff: 'tiff',
  avif: 'avif', heic: 'heic', heif: 'heif', bmp: 'bmp', jxl: 'jxl', jp2: 'jp2',
};

/** The usual extension of a format (`jpeg` -> `.jpg`). */
function extensionOf(format: string): string {
  return format === 'jpeg' ? '.jpg' : `.${format}`;
}

/** `svg`, `pdf` -> `SVG`, `PDF` (as users name them). */
function nameOf(format: string): string {
  return format.toUpperCase();
}

/** `a`, `a or b`, `a, b or c`. */
function orList(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

/** The format the extension of `file` names, or undefined (no extension, or not an image/document one). */
export function formatOfName(file: string): string | undefined {
  const ext = path.extname(file).slice(1).toLowerCase();
  return ext ? EXTENSIONS[ext] : undefined;
}

/**
 * The format `verb` writes to `output`: `given` (the format flag's text) when set, else the one the -o
 * extension names, else the default. Throws a UsageError when the extension names a format the verb cannot
 * write, or one other than `given`. A `given` value the verb does not know is passed on (the op names it).
 */
export function chooseOutputFormat(verb: string, output: string, given: string | undefined, formats: OutputFormats, usage?: string): string {
  const named = output === STDIO ? undefined : formatOfName(output);
  const writes = formats.values;
  const written = `${verb} writes ${orList(writes.map(nameOf))}${writes.length === 1 ? ' only' : ''}`;
  const rename = `name the output ${orList(writes.map(extensionOf))}`;
  if (named !== undefined && !writes.includes(named)) {
    throw new UsageError(`-o ${output} names ${nameOf(named)}, but ${written}: ${rename} (or -o - for stdout)`, usage, { output, format: named });
  }
  if (named !== undefined && given !== undefined && given !== named && writes.includes(given)) {
    const flag = flagText(formats.field ?? 'format');
    throw new UsageError(
      `-o ${output} names ${nameOf(named)}, but ${flag} is ${given}: name the output ${extensionOf(given)}, or leave out ${flag} to write ${nameOf(named)}`,
      usage, { output, format: named, [formats.field ?? 'format']: given },
    );
  }
  return given ?? named ?? writes[0]!;
}

/** The verbs that write a PNG and nothing else (fix, remove-bg, upscale). */
export const PNG_ONLY: OutputFormats = { values: ['png'] };
