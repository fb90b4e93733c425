// The try-it page's files over real HTTP (both transports): GET / with its Content-Security-Policy and
// security headers, every listed asset with its content type and no key needed, nothing outside the fixed
// list (traversal attempts and unknown names are 404), and page code that never stores the key or names
// another origin. The page itself is driven in a browser by test/browser/page.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_CSP, WEB_FILES } from '../../adapter-http/src/routes/web.js';
import { startTestServer, type TestServer } from './harness.js';

const WEB_DIR = new URL('../../adapter-http/web/', import.meta.url);

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

describe('GET / and the page assets', () => {
  it('serves the page without a key, with a self-only CSP and no inline script or style', async () => {
    const res = await fetch(t.url + '/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toBe(PAGE_CSP);
    for (const d of ["default-src 'self'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "object-src 'none'", "frame-ancestors 'none'"]) expect(csp).toContain(d);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:|\*/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const html = await res.text();
    expect(html).toContain('<script type="module" src="/web/app.js"></script>');
    // Every script has a src (no inline code), and no element carries a style attribute or an on* handler.
    for (const m of html.matchAll(/<script\b[^>]*>/g)) expect(m[0]).toMatch(/\bsrc="\/web\/[a-z-]+\.js"/);
    expect(html).not.toMatch(/<style\b|\sstyle=|\son[a-z]+=/i);
  });

  it('serves every listed file with its content type, and lists every file of the folder', async () => {
    for (const [p, f] of Object.entries(WEB_FILES)) {
      const res = await fetch(t.url + p);
      expect(res.status, p).toBe(200);
      expect(res.headers.get('content-type'), p).toBe(f.type);
      expect(res.headers.get('x-content-type-options'), p).toBe('nosniff');
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(new Uint8Array(readFileSync(new URL(f.file, WEB_DIR))));
    }
    expect(Object.values(WEB_FILES).map((f) => f.file).sort()).toEqual(readdirSync(WEB_DIR).sort());
  });

  it('serves nothing else: traversal and unknown names are 404, other methods 405', async () => {
    for (const p of ['/web/../package.json', '/web/%2e%2e/package.json', '/web/..%2fpackage.json', '/web/', '/web/nope.js', '/index.html', '/web/app.js/', '//web/app.js', '/package.json', '/src/routes/web.ts']) {
      const res = await fetch(t.url + p);
      expect(res.status, p).toBe(404);
      expect(((await res.json()) as { code: string }).code, p).toBe('not_found');
    }
    const post = await fetch(t.url + '/', { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('page code keeps the key in memory and talks to this origin only', () => {
    for (const f of readdirSync(WEB_DIR).filter((n) => n.endsWith('.js'))) {
      // Code only: comments may name what the code avoids.
      const src = readFileSync(new URL(f, WEB_DIR), 'utf8').replace(/^\s*\/\/.*$/gm, '').replace(/\s\/\/ .*$/gm, '');
      expect(src, f).not.toMatch(/localStorage|sessionStorage|document\.cookie|indexedDB/);
      expect(src, f).not.toMatch(/https?:\/\//);
      expect(src, f).not.toMatch(/\beval\(|new Function|innerHTML|insertAdjacentHTML|document\.write/);
    }
  });

  it('the vectorize form has a control for every field of POST /api/v1/vectorize in the OpenAPI document', () => {
    const doc = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')) as {
      paths: Record<string, { post: { requestBody: { content: Record<string, { schema: { properties: Record<string, unknown> } }> } } }>;
    };
    const fields = Object.keys(doc.paths['/api/v1/vectorize']!.post.requestBody.content['multipart/form-data']!.schema.properties);
    const html = readFileSync(new URL('index.html', WEB_DIR), 'utf8');
    const form = html.slice(html.indexOf('<form id="vectorize-form"'), html.indexOf('</form>', html.indexOf('<form id="vectorize-form"')));
    const script = readFileSync(new URL('vectorize.js', WEB_DIR), 'utf8');
    expect(fields.length).toBeGreaterThan(10);
    for (const field of fields) {
      if (field === 'image') continue; // the dropped file
      // a job's callback_url: a page in a browser cannot be called back (it follows the job instead: as_job)
      if (field === 'callback_url') continue;
      // `colors` is two controls (auto/unlimited/count, and the count).
      const names = field === 'colors' ? ['colors_mode', 'colors_count'] : [field];
      for (const name of names) expect(form, `control ${name}`).toContain(`name="${name}"`);
      expect(script, `field ${field} sent`).toMatch(new RegExp(`\\b${field}:`));
    }
  });
});
