// GET /api/v1/openapi.json: the OpenAPI 3.1 document of the route table (openapi/document.ts), no key
// needed. Built on first request and kept (the route table and the validation do not change at run time).
// The table is handed in (routes/index.ts passes its own), so this route does not import the table it
// belongs to.
import { JSON_TYPE } from '../http/reply.js';
import { openApiText } from '../openapi/document.js';
import { getRoute, type RouteDef } from './define.js';

/** The route serving the document of `routes()` (read on the first request, when the table is complete). */
export function openApiRoute(routes: () => readonly RouteDef[]): RouteDef {
  let text: string | null = null;
  return getRoute({
    path: '/api/v1/openapi.json',
    auth: false,
    handle: () => ({ status: 200, contentType: JSON_TYPE, body: (text ??= openApiText(routes())) }),
  });
}
