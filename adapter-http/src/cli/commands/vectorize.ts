// `inkprep vectorize <file|-> -o <out.svg|out.pdf|out.eps|out.dxf|-> [--colors auto] ...`: raster art -> SVG,
// PDF, EPS or DXF (the -o extension picks the format unless --output-format says it; file-verb.ts checks
// that they agree).
import { runFileVerb } from '../file-verb.js';
import type { Command } from '../command.js';
import { textOptions } from '@inkprep/engine';
import { cliFields, formatsOf, optionLines } from '../option-flags.js';

const USAGE = `usage: inkprep vectorize <in.png|jpg|webp|-> -o <out.svg|out.pdf|out.eps|out.dxf|-> [options]

Options (the fields of POST /api/v1/vectorize):
${optionLines('vectorize', { output_format: 'default: from the -o extension (.svg, .pdf, .eps, .dxf), else svg' }, [
  ['--json', 'print { format, paths, colorsUsed, traceMs, width, height } on stdout (on stderr with -o -, which writes the document to stdout)'],
  ['--quiet', 'no summary line and no progress line on stderr'],
  ['--progress', 'when stderr is not a terminal, also a progress line as each stage begins'],
]).join('\n')}
- as the input reads the image from stdin; -o - writes the document to stdout (SVG unless --output-format).
An -o extension that names another format (x.png), or disagrees with --output-format, is a usage error (exit 2).`;

const FORMATS = formatsOf('vectorize', 'output_format');

/** When `--colors N` asked for more colours than were painted: how many were asked and why fewer show. */
function fewerColours(requested: string | undefined, used: number): string {
  const n = requested !== undefined && /^\d+$/.test(requested) ? Number(requested) : NaN;
  return n > used ? ` (${n} requested: only ${used} painted any shape)` : '';
}

export const vectorizeCommand: Command = {
  name: 'vectorize',
  op: 'vectorize',
  summary: 'convert raster art (PNG/JPEG/WebP) into a print-ready SVG, PDF, EPS or DXF',
  usage: USAGE,
  run(argv) {
    const spec = { verb: this.name, usage: USAGE, output: 'out.svg', binary: (format: string) => format === 'pdf', formats: FORMATS, fields: cliFields('vectorize') };
    return runFileVerb(argv, spec, async ({ input, output, options, flags, engine, call, write, report, say }) => {
      const res = await engine.vectorize(input, textOptions(options), call);
      await write(res.data);
      const stats = { format: res.format, paths: res.paths, colorsUsed: res.colorsUsed, traceMs: res.traceMs, width: res.width, height: res.height };
      if (flags.json) report(stats);
      else say(`${output === '-' ? 'stdout' : output}: ${res.format}, ${res.paths} paths, ${res.colorsUsed} colours${fewerColours(options.colors, res.colorsUsed)}, ${res.traceMs} ms`);
    });
  },
};
