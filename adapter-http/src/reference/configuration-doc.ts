// docs/reference/configuration.md, generated from the one table of environment variables (config.ts
// CONFIG_VARIABLES): one section per part of the service, each variable with its values, default, meaning and
// an example. `npm run docs:options` writes it; test/repo/configuration-reference.test.ts fails when the
// committed file differs, when config.ts reads a variable the table lacks, and when adapter-http/src, docs/ or
// README.md name an INKPREP_ variable the table does not have.
import type { ConfigSection, ConfigVariable } from '../config.js';

const SECTIONS: readonly { id: ConfigSection; title: string; intro: string }[] = [
  { id: 'server', title: 'Server', intro: 'Where `inkprep serve` listens, what it logs, and how it stops.' },
  { id: 'limits', title: 'Limits and the vectorize line', intro: 'Engine threads and queue, upload and pixel limits, the vectorize line ([operating](../guides/operating.md)).' },
  { id: 'metrics', title: 'Metrics', intro: 'The Prometheus endpoint ([logs, metrics, shutdown](../guides/operating.md#logs-metrics-shutdown)).' },
  { id: 'store', title: 'Store (SQLite or PostgreSQL)', intro: 'Accounts, usage and hosted results ([scaling out on PostgreSQL](../guides/deploying.md#scaling-out-postgresql-and-several-processes)). Read by the server and the admin CLI.' },
  { id: 'webhooks', title: 'Webhooks', intro: 'Where and how a job\'s `callback_url` is called ([webhooks](../guides/webhooks.md)).' },
  { id: 'engine', title: 'Engine: caches and models', intro: 'What the engine is handed: its cache directories and the segmentation model of remove-bg ([remove-bg](../algorithms/remove-bg.md)). Read by the server and every CLI verb that builds an engine.' },
  { id: 'catalog', title: 'Garment catalogue (suppliers)', intro: 'The S&S Activewear connector of the mockup ([mockup](../algorithms/mockup.md)).' },
  { id: 'cluster', title: 'Cluster', intro: '`inkprep cluster`: several server processes on one port.' },
  { id: 'cli', title: 'CLI', intro: 'Read by the `inkprep` command line only.' },
];

/** Variables the tests and tools read (never the service); named in the docs, so listed here too. */
export const TOOL_VARIABLES: readonly { name: string; readBy: string; description: string }[] = [
  { name: 'INKPREP_CORPUS', readBy: '`golden/lib/corpus.ts` (goldens, benches)', description: 'Directory of the artwork corpus; default `corpus/open` in the repository.' },
  { name: 'INKPREP_TEST_DATABASE_URL', readBy: '`test/scale/pg.ts`, `bench/suites/vectorize-line.ts`', description: 'PostgreSQL the tests and benches use; default `postgres://postgres@127.0.0.1:5432/postgres` (tests skip with the reason printed when none answers).' },
];

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
/** A value as code, unless it is prose (`unset (...)`, `max(2, cores)` stays code). */
const value = (s: string) => (/^(unset|on|off)\b/.test(s) || / \(/.test(s) ? cell(s) : `\`${cell(s)}\``);

/** The whole reference page. */
export function configurationReference(variables: readonly ConfigVariable[]): string {
  const out: string[] = [
    '# Configuration variables',
    '',
    '<!-- Generated from CONFIG_VARIABLES in adapter-http/src/config.ts by `npm run docs:options`; do not edit. -->',
    '',
    'Every environment variable the service and the `inkprep` CLI read. They are all read in one module,',
    '`adapter-http/src/config.ts`, once at start: a bad value stops the start with a message naming the variable,',
    'instead of failing the first request. The engine itself reads no environment: a host hands it these values',
    '([embedding the engine](../guides/embedding-the-engine.md)). How to deploy with them: [deploying](../guides/deploying.md).',
    '',
    ...SECTIONS.map((s) => `- [${s.title}](#${s.title.toLowerCase().replace(/[^\p{L}\p{N} -]/gu, '').replace(/ /g, '-')})`),
    '- [Tests and tools](#tests-and-tools)',
    '',
  ];
  for (const s of SECTIONS) {
    const rows = variables.filter((v) => v.section === s.id);
    if (rows.length === 0) continue;
    out.push(`## ${s.title}`, '', s.intro, '', '| variable | values | default | what it does | example |', '|---|---|---|---|---|');
    for (const v of rows) out.push(`| \`${v.name}\` | ${cell(v.type)} | ${value(v.default)} | ${cell(v.description)} | \`${cell(v.example)}\` |`);
    out.push('');
  }
  out.push('## Tests and tools', '', 'Not read by the service; named in these docs.', '', '| variable | read by | what it does |', '|---|---|---|');
  for (const t of TOOL_VARIABLES) out.push(`| \`${t.name}\` | ${cell(t.readBy)} | ${cell(t.description)} |`);
  out.push('');
  return out.join('\n');
}
