// The CLI's version: the `version` of @inkprep/http's package.json (the package that installs the bin).
import { readFileSync } from 'node:fs';

/** Read once; the path is the same from src/cli and dist/cli. */
export function cliVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
}
