// `npm run openapi`: writes docs/openapi.json from the route table (test/http/openapi-document.test.ts
// fails when the committed file differs from the generated one).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ROUTES } from '../routes/index.js';
import { openApiText } from './document.js';

const out = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));
writeFileSync(out, openApiText(ROUTES));
console.log(`wrote ${out}`);
