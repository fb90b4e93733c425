// `npm run openapi` (also `npm run docs:http`): writes docs/openapi.json from the route table and
// docs/reference/http-api.md from that document (test/http/openapi-document.test.ts and
// test/repo/http-reference.test.ts fail when a committed file differs from the generated one).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROUTES } from '../routes/index.js';
import { buildOpenApi, openApiText } from './document.js';
import { httpReference } from './reference.js';

const out = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));
writeFileSync(out, openApiText(ROUTES));
console.log(`wrote ${out}`);

const page = fileURLToPath(new URL('../../../docs/reference/http-api.md', import.meta.url));
mkdirSync(path.dirname(page), { recursive: true });
writeFileSync(page, httpReference(buildOpenApi(ROUTES)));
console.log(`wrote ${page}`);
