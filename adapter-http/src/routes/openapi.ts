// GET /api/v1/openapi.json: the OpenAPI 3.1 document of the route table (openapi/document.ts), no key
// needed. Built on first request and kept (the route table and the validation do not change at run time).
import { JSON_TYPE } from '../http/reply.js';
import { openApiText } from '../openapi/document.js';
import { getRoute, type RouteDef } from './define.js';
import { ROUTES } from './index.js';

let text: string | null = null;

export const openApiRoute: RouteDef = getRoute({
  path: '/api/v1/openapi.json',
  auth: false,
  handle: () => ({ status: 200, contentType: JSON_TYPE, body: (text ??= openApiText(ROUTES)) }),
});
