// `inkprep vectorize <file|-> -o <out.svg|out.pdf|out.eps|out.dxf|-> [--colors auto] ...`: raster art -> SVG,
// PDF, EPS or DXF (the -o extension picks the format unless --output-format says it).
import { runFileVerb } from '../file-verb.js';
import type { Command } from '../command.js';
import { textOptions } from '@inkprep/engine';
import { cliFields, optionLines } from '../option-flags.js';

const USAGE = `usage: inkprep vectorize <in.png|jpg|webp|-> -o <out.svg|out.pdf|out.eps|out.dxf|-> [options]

Options (the fields of POST /api/v1/vectorize):
${optionLines('vectorize', { output_format: 'default: from the -o extension (.pdf, .eps, .dxf), else svg' }, [
  ['--json', 'print { format, paths, colorsUsed, traceMs, width, height } on stdout (on stderr with -o -, which writes the document to stdout)'],
  ['--quiet', 'no summary line and no progress line on stderr'],
]).join('\n')}
- as the input reads the image from stdin; -o - writes the document to stdout (SVG unless --output-format).`;

/** The format the -o extension names (`.pdf`, `.eps`, `.dxf`, `.svg`), or undefined. */
function formatOf(output: string): string | undefined {
  return /\.(svg|pdf|eps|dxf)$/i.exec(output)?.[1]?.toLowerCase();
}

/** `--output-format` when given (the engine validates it), else the -o extension's. */
function withFormat(options: Record<string, string>, output: string): Record<string, string> {
  if (options.output_format !== undefined) return options;
  const ext = formatOf(output);
  return ext ? { ...options, output_format: ext } : options;
}

export const vectorizeCommand: Command = {
  name: 'vectorize',
  op: 'vectorize',
  summary: 'convert raster art (PNG/JPEG/WebP) into a print-ready SVG, PDF, EPS or DXF',
  usage: USAGE,
  run(argv) {
    const binary = (options: Record<string, string>, output: string) => withFormat(options, output).output_format === 'pdf';
    return runFileVerb(argv, { verb: this.name, usage: USAGE, output: 'out.svg', binary, fields: cliFields('vectorize') }, async ({ input, output, options, flags, engine, call, write, report }) => {
      const res = await engine.vectorize(input, textOptions(withFormat(options, output)), call);
      await write(res.data);
      const stats = { format: res.format, paths: res.paths, colorsUsed: res.colorsUsed, traceMs: res.traceMs, width: res.width, height: res.height };
      if (flags.json) report(stats);
      else if (!flags.quiet) process.stderr.write(`${output === '-' ? 'stdout' : output}: ${res.format}, ${res.paths} paths, ${res.colorsUsed} colours, ${res.traceMs} ms\n`);
    });
  },
};
