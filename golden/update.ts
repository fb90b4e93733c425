// `npm run golden:update [area | area/case ...]`: regenerate golden/expected/<area>/* from
// golden/cases/<area>.ts (all areas when none is named; `area/case` rewrites one case only). Run it only
// after an intended change, and look at the new files.
import path from 'node:path';
import { listAreas, loadArea, updateCase } from './lib/golden.js';

async function main(argv: string[]): Promise<number> {
  const areas = listAreas();
  const wanted = argv.filter((a) => a !== '--');
  // area -> case names to update (null = every case of the area)
  const only = new Map<string, Set<string> | null>();
  for (const w of wanted.length ? wanted : areas) {
    const [area, name] = w.split('/', 2) as [string, string | undefined];
    if (name === undefined) only.set(area, null);
    else if (only.get(area) !== null) only.set(area, (only.get(area) ?? new Set<string>()).add(name));
  }
  const names = [...only.keys()];
  const unknown = names.filter((a) => !areas.includes(a));
  if (unknown.length) {
    process.stderr.write(`golden:update: unknown area(s) ${unknown.join(', ')}; known: ${areas.join(', ') || '(none)'}\n`);
    return 2;
  }
  let failed = 0;
  for (const area of names) {
    const cases = await loadArea(area);
    const pick = only.get(area);
    for (const n of pick ?? []) {
      if (!cases.some((c) => c.name === n)) {
        failed++;
        process.stderr.write(`golden:update: no case ${area}/${n}; cases: ${cases.map((c) => c.name).join(', ')}\n`);
      }
    }
    for (const c of cases) {
      if (pick && !pick.has(c.name)) continue;
      try {
        const r = await updateCase(area, c);
        process.stdout.write(`wrote ${path.relative(process.cwd(), r.file)} (${r.width}x${r.height}, ${r.bytes} bytes)\n`);
      } catch (err) {
        failed++;
        process.stderr.write(`golden:update: ${area}/${c.name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      }
    }
  }
  return failed ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
