// Writes docs/reference/engine-api.md: every export of `@inkprep/engine` (engine/src/index.ts) with its
// signature or declaration and its TSDoc, read with the TypeScript compiler API from the source itself, so the
// page cannot drift from the code. test/repo/engine-api-reference.test.ts fails when the committed page differs
// from what this generates, and when a public export has no doc comment.
//
// Why the compiler API and not typedoc: typescript is already a devDependency (typedoc would add a package and
// its markdown plugin for one page), and the page wanted is one markdown file in the repository, grouped the
// way a reader of the library looks for things, compared byte for byte in a test.
//
//   node --import tsx scripts/engine-api-reference.ts           rewrite the page   (npm run docs:engine)
//   node --import tsx scripts/engine-api-reference.ts --check   exit 1 when the committed page is stale
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const ENGINE_INDEX = path.join(ROOT, 'engine/src/index.ts');
export const PAGE = path.join(ROOT, 'docs/reference/engine-api.md');

/** The page's sections, in order, and the source files (relative to engine/src) whose exports each holds. */
const GROUPS: readonly { title: string; intro: string; files: readonly string[] }[] = [
  {
    title: 'Engine lifecycle',
    intro: 'Create an engine (it owns a worker pool), call its ops, close it. What the host hands it: pool sizes, paths, models.',
    files: ['engine.ts', 'settings.ts', 'matte/model.ts', 'progress.ts'],
  },
  {
    title: 'Ops and their options',
    intro: 'The op names, the typed options each takes and the result each returns, and the helpers that resolve options once.',
    files: ['ops/registry.ts', 'ops/types.ts', 'options/validate.ts'],
  },
  {
    title: 'scan',
    intro: 'Check artwork for print problems (`engine.scan`).',
    files: ['ops/scan.ts', 'scan/options.ts', 'scan/types.ts'],
  },
  {
    title: 'fix',
    intro: 'Repair what the scan finds (`engine.fix`).',
    files: ['ops/fix.ts', 'fix/options.ts', 'fix/pipeline.ts'],
  },
  {
    title: 'vectorize',
    intro: 'Raster to SVG, PDF, EPS or DXF (`engine.vectorize`).',
    files: ['ops/vectorize.ts', 'vectorize/pipeline.ts', 'vectorize/settings.ts', 'vectorize/options.ts', 'vectorize/formats/index.ts', 'vectorize/formats/dxf.ts'],
  },
  {
    title: 'removeBg',
    intro: 'Background removal (`engine.removeBg`) and the segmentation models it may use.',
    files: ['ops/remove-bg.ts', 'matte/types.ts', 'matte/model-catalog.ts'],
  },
  {
    title: 'upscale',
    intro: 'Art-aware upscaling (`engine.upscale`).',
    files: ['ops/upscale.ts', 'upscale/options.ts', 'upscale/upscale.ts'],
  },
  {
    title: 'underbase',
    intro: 'The white plate under DTF colour, the knock-out, and a RIP-ready separation PDF (`engine.underbase`).',
    files: ['ops/underbase.ts', 'underbase/options.ts', 'underbase/report.ts', 'underbase/checks.ts'],
  },
  {
    title: 'gangsheet',
    intro: 'Many designs nested on their true outlines on a DTF film roll, as a print-ready PDF, a PNG or a manifest (`engine.gangsheet`, `packDesigns`).',
    files: ['ops/gangsheet.ts', 'gangsheet/options.ts', 'gangsheet/designs.ts', 'gangsheet/layout.ts', 'gangsheet/place.ts'],
  },
  {
    title: 'mockup',
    intro: 'True-to-size mockups (`engine.mockup`, and `engine.mockupBatch` for one design on many garments): the garments, colours, placements and templates it knows.',
    files: ['mockup/resolve.ts', 'mockup/render.ts', 'mockup/batch-options.ts', 'mockup/batch-render.ts', 'mockup/warnings.ts', 'mockup/templates.ts', 'garments/specs.ts'],
  },
  {
    title: 'underbase',
    intro: 'The white underbase plate printed under the colours (`engine.underbase`), its checks and its separation PDF.',
    files: ['ops/underbase.ts', 'underbase/options.ts', 'underbase/checks.ts', 'underbase/report.ts', 'underbase/plates.ts', 'underbase/pdf.ts'],
  },
  {
    title: 'Images and formats',
    intro: 'Decoded pixels, header facts (`engine.info`, `probeImage`) and format sniffing.',
    files: ['raster/types.ts', 'raster/file.ts', 'raster/decode.ts', 'raster/sniff.ts'],
  },
  {
    title: 'Errors',
    intro: 'Every failure is an `InkprepError` with a stable `code` ([error codes](errors.md)).',
    files: ['errors.ts'],
  },
];

export interface ApiEntry {
  name: string;
  kind: 'function' | 'const' | 'class' | 'interface' | 'type';
  /** Source file relative to the repository root. */
  file: string;
  /** The signature (functions), the declared type (constants) or the declaration (types, interfaces, classes). */
  code: string;
  /** The doc comment's text, '' when there is none. */
  doc: string;
  /** `@example` blocks, as written. */
  examples: string[];
  /** A value at run time (functions, constants, classes not exported as `type`). */
  runtime: boolean;
  /** A type alias built from other types (`OpMethods & {...}`, `LibOptions<...> | WireOptions<...>`): its members, spelled out. */
  expanded?: string;
}

export interface ApiReference {
  entries: ApiEntry[];
  /** Exports without a doc comment (the test wants none). */
  undocumented: string[];
  /** Exports from a file no group lists (the test wants none: place them in GROUPS). */
  ungrouped: string[];
  page: string;
}

function program(index: string): ts.Program {
  const config = ts.readConfigFile(path.join(ROOT, 'engine/tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, path.join(ROOT, 'engine'));
  return ts.createProgram([index], { ...parsed.options, noEmit: true, incremental: false, composite: false });
}

/** A declaration as a reader wants it: its own text without its doc comment or `export`, members' comments kept. */
function declarationText(decl: ts.Declaration, sf: ts.SourceFile): string {
  const full = decl.getText(sf);
  return full.replace(/^export\s+(declare\s+)?/, '').replace(/\s*\{\s*\}$/, ' {}');
}

/** One line per function overload: `name(params): Return`. */
function functionSignatures(name: string, decl: ts.FunctionDeclaration, sf: ts.SourceFile): string {
  const typeParams = decl.typeParameters ? `<${decl.typeParameters.map((p) => p.getText(sf)).join(', ')}>` : '';
  const params = decl.parameters.map((p) => p.getText(sf)).join(', ');
  const ret = decl.type ? `: ${decl.type.getText(sf)}` : '';
  return `function ${name}${typeParams}(${params})${ret}`;
}

/** A constant's declared type, or the checker's, printed over several lines (never its value: catalogue tables are long). */
function constText(name: string, decl: ts.VariableDeclaration, checker: ts.TypeChecker, sf: ts.SourceFile): string {
  if (decl.type) return `const ${name}: ${decl.type.getText(sf)}`;
  const flags = ts.NodeBuilderFlags.NoTruncation | ts.NodeBuilderFlags.UseSingleQuotesForStringLiteralType | ts.NodeBuilderFlags.MultilineObjectLiterals;
  const node = checker.typeToTypeNode(checker.getTypeAtLocation(decl.name), decl, flags);
  if (!node) throw new Error(`@inkprep/engine export ${name}: no type`);
  const printer = ts.createPrinter({ removeComments: true });
  return `const ${name}: ${printer.printNode(ts.EmitHint.Unspecified, node, sf).replace(/    /g, '  ')}`;
}

/** A class: its heading and its public members (their doc comments kept), method bodies left out. */
function classText(decl: ts.ClassDeclaration, sf: ts.SourceFile): string {
  const text = sf.text;
  const head = text.slice(decl.getStart(sf), decl.members.pos).replace(/^export\s+/, '').trimEnd();
  const members = decl.members
    .filter((m) => !(m.name && ts.isPrivateIdentifier(m.name)))
    .filter((m) => !(ts.getCombinedModifierFlags(m as unknown as ts.Declaration) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)))
    .map((m) => {
      // From the member's leading comment to its body (or its end; initializers are implementation).
      const stop = (ts.isConstructorDeclaration(m) || ts.isMethodDeclaration(m)) && m.body ? m.body.getStart(sf)
        : ts.isPropertyDeclaration(m) && m.initializer ? m.initializer.getStart(sf) : m.getEnd();
      const own = text.slice(m.getFullStart(), stop).replace(/^\s*\n/, '').replace(/[\s=;]+$/, '');
      return `${own};`;
    });
  return [head, ...members, '}'].join('\n');
}

/** One object type's members, one per line: `name?: type;`, methods by their signatures. */
function membersText(type: ts.Type, at: ts.Node, checker: ts.TypeChecker): string {
  const flags = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType;
  const lines = checker.getPropertiesOfType(type).map((p) => {
    const t = checker.getTypeOfSymbolAtLocation(p, at);
    const optional = p.flags & ts.SymbolFlags.Optional ? '?' : '';
    const sigs = t.getCallSignatures();
    if (sigs.length > 0 && !optional) return sigs.map((sig) => `  ${p.getName()}${checker.signatureToString(sig, at, flags)};`).join('\n');
    const text = checker.typeToString(optional ? checker.getNonNullableType(t) : t, at, flags);
    return `  ${p.getName()}${optional}: ${text};`;
  });
  // The checker names a type the declaring file does not import as `import("/abs/path").Name`: the names are the
  // package's own exports, and an absolute path would make the page differ from checkout to checkout.
  return ['{', ...lines, '}'].join('\n').replace(/import\("[^"]*"\)\./g, '').replace(/\?: ([^,)]+) \| undefined([,)])/g, '?: $1$2');
}

/**
 * A non-generic type alias made of other types (an intersection with a private part, the two halves of an
 * option type): its members spelled out, since the declaration alone names types the reader cannot open.
 * Undefined for aliases that read well as written (literal unions, object literals).
 */
function expandedText(decl: ts.TypeAliasDeclaration, checker: ts.TypeChecker): string | undefined {
  if (decl.typeParameters || ts.isTypeLiteralNode(decl.type)) return undefined;
  const type = checker.getTypeAtLocation(decl.name);
  const parts = type.isUnion() ? type.types : [type];
  const isObject = (t: ts.Type) => (t.flags & ts.TypeFlags.Object) !== 0 || t.isIntersection();
  // The platform's types (Uint8Array) are documented elsewhere; a record type has no members to list.
  const fromLib = (t: ts.Type) => (t.getSymbol()?.declarations ?? []).some((d) => d.getSourceFile().hasNoDefaultLib);
  if (!parts.every(isObject) || parts.some(fromLib) || parts.some((t) => checker.getPropertiesOfType(t).length === 0)) return undefined;
  return parts.map((t) => membersText(t, decl, checker)).join('\n| ');
}

/** The export's own TSDoc: text and @example blocks (tags other than @example are kept in the text). */
function docOf(symbol: ts.Symbol, checker: ts.TypeChecker): { doc: string; examples: string[] } {
  const doc = ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
  const examples: string[] = [];
  const other: string[] = [];
  for (const tag of symbol.getJsDocTags(checker)) {
    const text = ts.displayPartsToString(tag.text ?? []).trim();
    if (tag.name === 'example') examples.push(text.replace(/^```\w*\n?|```$/g, '').trim());
    else other.push(`@${tag.name}${text ? ` ${text}` : ''}`);
  }
  return { doc: [doc, ...other].filter((s) => s !== '').join('\n\n'), examples };
}

function entryOf(name: string, exported: ts.Symbol, checker: ts.TypeChecker): ApiEntry {
  const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
  const decl = symbol.declarations?.[0];
  if (!decl) throw new Error(`@inkprep/engine export ${name} has no declaration`);
  const sf = decl.getSourceFile();
  const file = path.relative(ROOT, sf.fileName).split(path.sep).join('/');
  const { doc, examples } = docOf(symbol, checker);
  // `export { type X }` / `export type { X }`: a class exported this way is a type to the consumer.
  const spec = exported.declarations?.find(ts.isExportSpecifier);
  const typeOnly = spec !== undefined && (spec.isTypeOnly || spec.parent.parent.isTypeOnly);
  const runtime = !typeOnly && (ts.isFunctionDeclaration(decl) || ts.isVariableDeclaration(decl) || ts.isClassDeclaration(decl));
  const base = { name, file, doc, examples, runtime };
  if (ts.isFunctionDeclaration(decl)) {
    const overloads = (symbol.declarations ?? []).filter(ts.isFunctionDeclaration);
    const sigs = overloads.length > 1 ? overloads.filter((d) => !d.body) : overloads;
    return { ...base, kind: 'function', code: sigs.map((d) => functionSignatures(name, d, sf)).join('\n') };
  }
  if (ts.isVariableDeclaration(decl)) return { ...base, kind: 'const', code: constText(name, decl, checker, sf) };
  if (ts.isClassDeclaration(decl)) return { ...base, kind: 'class', code: classText(decl, sf) };
  if (ts.isInterfaceDeclaration(decl)) return { ...base, kind: 'interface', code: declarationText(decl, sf) };
  if (ts.isTypeAliasDeclaration(decl)) {
    const expanded = expandedText(decl, checker);
    return { ...base, kind: 'type', code: declarationText(decl, sf), ...(expanded ? { expanded } : {}) };
  }
  throw new Error(`@inkprep/engine export ${name}: unexpected declaration kind ${ts.SyntaxKind[decl.kind]}`);
}

/** GitHub's heading slug of a name heading (`### \`createEngine\``). */
const slug = (name: string) => name.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');

/** The entries of the public face (`index`: the package's entry, or a test's own), grouped, and the page. */
export function engineApiReference(index: string = ENGINE_INDEX): ApiReference {
  const prog = program(index);
  const checker = prog.getTypeChecker();
  const sf = prog.getSourceFile(index)!;
  const moduleSymbol = checker.getSymbolAtLocation(sf)!;
  const entries = checker.getExportsOfModule(moduleSymbol).map((s) => entryOf(s.getName(), s, checker));
  const undocumented = entries.filter((e) => e.doc === '').map((e) => e.name).sort();
  const groupOf = (e: ApiEntry) => GROUPS.findIndex((g) => g.files.some((f) => e.file === `engine/src/${f}`));
  const ungrouped = entries.filter((e) => groupOf(e) < 0).map((e) => `${e.name} (${e.file})`).sort();

  const out: string[] = [
    '# `@inkprep/engine` API',
    '',
    '<!-- Generated from the TSDoc of engine/src by `npm run docs:engine` (scripts/engine-api-reference.ts); do not edit. -->',
    '',
    `Every export of the package's public entry (\`engine/src/index.ts\`): ${entries.length} names, ` +
      `${entries.filter((e) => e.runtime).length} of them values at run time, the rest types. ` +
      "Anything else is in `@inkprep/engine/internals`, which carries no stability promise. How to use them: " +
      '[embedding the engine](../guides/embedding-the-engine.md); the options of every op, field by field: [options](options.md).',
    '',
  ];
  const grouped = GROUPS.map((g, i) => ({ ...g, entries: entries.filter((e) => groupOf(e) === i) })).filter((g) => g.entries.length > 0);
  // Within a group: values first (what you call), then types, each in alphabetical order.
  const rank = (e: ApiEntry) => (e.runtime ? 0 : 1);
  for (const g of grouped) g.entries.sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name, 'en'));
  // Anchors as GitHub numbers repeated slugs (`textOptions` and `TextOptions` are both #textoptions): in page order.
  const anchors = new Map<ApiEntry, string>();
  const seen = new Map<string, number>(grouped.map((g) => [slug(g.title), 1]));
  seen.set('contents', 1);
  for (const e of grouped.flatMap((g) => g.entries)) {
    const base = slug(e.name);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.set(e, n === 0 ? base : `${base}-${n}`);
  }
  out.push('## Contents', '');
  for (const g of grouped) out.push(`- **${g.title}**: ${g.entries.map((e) => `[\`${e.name}\`](#${anchors.get(e)!})`).join(' · ')}`);
  out.push('');
  for (const g of grouped) {
    out.push(`## ${g.title}`, '', g.intro, '');
    for (const e of g.entries) {
      const kind = e.kind === 'class' && !e.runtime ? 'class (exported as a type)' : e.kind;
      out.push(`### \`${e.name}\``, '', `*${kind}*, declared in [\`${e.file}\`](../../${e.file})`, '', '```ts', e.code, '```', '');
      if (e.expanded) out.push('Spelled out:', '', '```ts', e.expanded, '```', '');
      if (e.doc) out.push(e.doc, '');
      for (const ex of e.examples) out.push('Example:', '', '```ts', ex, '```', '');
    }
  }
  return { entries, undocumented, ungrouped, page: out.join('\n') };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ref = engineApiReference();
  if (ref.ungrouped.length > 0) console.error(`exports in no group of scripts/engine-api-reference.ts: ${ref.ungrouped.join(', ')}`);
  if (ref.undocumented.length > 0) console.error(`exports without a doc comment: ${ref.undocumented.join(', ')}`);
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(PAGE, 'utf8');
    } catch {
      // missing counts as stale
    }
    if (current !== ref.page) {
      console.error(`${path.relative(ROOT, PAGE)} is stale: run npm run docs:engine`);
      process.exitCode = 1;
    }
  } else {
    writeFileSync(PAGE, ref.page);
    console.log(`wrote ${PAGE} (${ref.entries.length} exports)`);
  }
  if (ref.ungrouped.length > 0 || ref.undocumented.length > 0) process.exitCode = 1;
}
