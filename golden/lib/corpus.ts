// Where the open artwork corpus lives: $INKPREP_CORPUS when set, else the copy committed in the
// repository at <repo>/corpus/open (SVGs, licences and manifest). Used by goldens, tests and benches
// that read real artwork (read-only); a plain clone has everything they need.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Absolute path of the open corpus directory, or null when it is not present on this machine. */
export function corpusDir(): string | null {
  const candidates = [process.env.INKPREP_CORPUS, path.resolve(REPO, 'corpus/open')];
  for (const c of candidates) if (c && existsSync(path.join(c, 'manifest.json'))) return c;
  return null;
}

/** Text of a corpus file (e.g. `gi-barn-owl.svg`); throws with a clear message when the corpus is missing. */
export function readCorpus(file: string): string {
  const dir = corpusDir();
  if (!dir) throw new Error('artwork corpus not found: expected at corpus/open in the repository (or set INKPREP_CORPUS)');
  return readFileSync(path.join(dir, file), 'utf8');
}
