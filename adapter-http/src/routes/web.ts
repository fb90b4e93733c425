// The try-it page (GET /) and its static assets, served from adapter-http/web/ (plain HTML, CSS and ES
// modules: no build step). Only the files named in WEB_FILES are served, each on its own exact route, so a
// request path never reaches the file system (no traversal possible). Files are read once and kept in
// memory. The HTML carries a Content-Security-Policy that allows this origin only and no inline script or
// style; the API key the page uses lives in a JavaScript variable of the tab (see web/api.js).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { binary, type Reply } from '../http/reply.js';
import { getRoute, type RouteDef } from './define.js';

/** The page's policy: this origin only; images may also be blob:/data: (results shown from memory). */
export const PAGE_CSP = [
  "default-src 'self'",
  "img-src 'self' blob: data:",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** URL path -> file in adapter-http/web/ and its content type. The only files the page routes serve. */
export const WEB_FILES: Readonly<Record<string, { file: string; type: string }>> = Object.freeze({
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/web/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
  '/web/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/web/api.js': { file: 'api.js', type: 'text/javascript; charset=utf-8' },
  '/web/dom.js': { file: 'dom.js', type: 'text/javascript; charset=utf-8' },
  '/web/compare.js': { file: 'compare.js', type: 'text/javascript; charset=utf-8' },
  '/web/scan.js': { file: 'scan.js', type: 'text/javascript; charset=utf-8' },
  '/web/vectorize.js': { file: 'vectorize.js', type: 'text/javascript; charset=utf-8' },
  '/web/cutout.js': { file: 'cutout.js', type: 'text/javascript; charset=utf-8' },
  '/web/mockup.js': { file: 'mockup.js', type: 'text/javascript; charset=utf-8' },
  '/web/underbase.js': { file: 'underbase.js', type: 'text/javascript; charset=utf-8' },
  '/web/gangsheet.js': { file: 'gangsheet.js', type: 'text/javascript; charset=utf-8' },
  '/web/swatches.js': { file: 'swatches.js', type: 'text/javascript; charset=utf-8' },
  '/web/favicon.svg': { file: 'favicon.svg', type: 'image/svg+xml' },
});

// src/routes/web.ts and dist/routes/web.js both sit two folders below the package root.
const WEB_DIR = new URL('../../web/', import.meta.url);

// X-Content-Type-Options: nosniff is on every reply of the service: both transports add it (transport/).
const SECURITY_HEADERS: Record<string, string> = {
  'Referrer-Policy': 'no-referrer',
  // Revalidate every time: the files have no fingerprint in their names, and they are small.
  'Cache-Control': 'no-cache',
};

function fileRoute(urlPath: string, file: string, type: string): RouteDef {
  let body: Uint8Array | null = null;
  const headers: Record<string, string> = type.startsWith('text/html')
    ? { ...SECURITY_HEADERS, 'Content-Security-Policy': PAGE_CSP, 'X-Frame-Options': 'DENY' }
    : { ...SECURITY_HEADERS };
  return getRoute({
    path: urlPath,
    auth: false,
    endpoint: 'web',
    handle(): Reply {
      body ??= new Uint8Array(readFileSync(fileURLToPath(new URL(file, WEB_DIR))));
      return binary(body, type, headers);
    },
  });
}

/** GET / and the page's assets (unauthenticated, unmetered: the page holds no secret). */
export const WEB_ROUTES: readonly RouteDef[] = Object.entries(WEB_FILES).map(([p, f]) => fileRoute(p, f.file, f.type));
