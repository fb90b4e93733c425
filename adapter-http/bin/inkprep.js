#!/usr/bin/env node
// Launcher for the `inkprep` CLI. Runs the compiled CLI; in a fresh repo clone it builds first.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import { spawnSync } from 'node:child_process';

const here = path.dirname(fileURLToPath(import.meta.url));
const main = path.resolve(here, '../dist/cli/main.js');
if (!existsSync(main)) {
  // Only a checkout can build (its tsconfig.json is not in the package); an installed package always ships
  // dist, so a missing one there is a broken install, not a reason to run npm in node_modules.
  if (!existsSync(path.resolve(here, '../tsconfig.json'))) {
    process.stderr.write(`inkprep: ${main} is missing: reinstall @inkprep/http\n`);
    process.exit(1);
  }
  const root = path.resolve(here, '../..');
  process.stderr.write('inkprep: building (first run)...\n');
  const r = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
const { main: run } = await import(pathToFileURL(main).href);
process.exitCode = await run(process.argv.slice(2));
