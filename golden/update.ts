// `npm run golden:update [area ...]`: regenerate golden/expected/<area>/* from golden/cases/<area>.ts
// (all areas when none is named). Run it only after an intended change, and look at the new files.
import path from 'node:path';
import { listAreas, loadArea, updateCase } from './lib/golden.js';

async function main(argv: string[]): Promise<number> {
  const areas = listAreas();
  const wanted = argv.filter((a) => a !== '--');
  const names = wanted.length ? wanted : areas;
  const unknown = names.filter((a) => !areas.includes(a));
  if (unknown.length) {
    process.stderr.write(`golden:update: unknown area(s) ${unknown.join(', ')}; known: ${areas.join(', ') || '(none)'}\n`);
    return 2;
  }
  let failed = 0;
  for (const area of names) {
    for (const c of await loadArea(area)) {
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
