// The try-it page's async mode (issue #33) in a real browser (Debian chromium through playwright-core) against
// a real server: Vectorize with "Run as a job" sends Prefer: respond-async, gets the 202 job, shows a progress
// bar that follows GET /api/v1/jobs/{id} (queued while someone else's conversion holds the line, then
// running), and when the job succeeds fetches its output and shows the SVG preview with the job's numbers
// (the X- headers of its result). Screenshots go to test-artifacts/browser/. Skips, printing why, when
// chromium cannot start.
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page, Request } from 'playwright-core';
import { startTestServer, type TestServer } from '../http/harness.js';
import { artifact, chromiumOrSkip, dropFile, loaded, openPage, openWithKey, textMatches } from './try-it.js';

const browser = await chromiumOrSkip();

describe.skipIf(!browser)('try-it page: vectorize as a job', () => {
  let t: TestServer;
  let context: BrowserContext;
  let page: Page;
  const requests: { method: string; url: string; prefer: string | undefined }[] = [];

  beforeAll(async () => {
    t = await startTestServer();
    ({ context, page } = await openPage(browser!));
    page.on('request', (r: Request) => requests.push({ method: r.method(), url: r.url(), prefer: r.headers().prefer }));
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
  });

  it('shows the job queued, its progress, then the SVG and the numbers of its result', async () => {
    const art = new Uint8Array(await sharp(readFileSync(new URL('../../corpus/open/noto-1f3c0-basketball.svg', import.meta.url)), { density: 72 })
      .resize(320, 320, { fit: 'inside' }).png().toBuffer());
    await openWithKey(page, t);
    await dropFile(page, art, 'basketball.png');
    await page.click('#tab-vectorize');
    await page.check('#vectorize-form input[name=as_job]');
    // Someone else's conversion holds the line: the job waits, queued, in its place.
    const held = await t.server.services.vectorizeQueue.acquire();
    try {
      await page.click('#vectorize-form button[type=submit]');
      await textMatches(page, '#vectorize-job-status', /^Job queued/);
      expect(await page.locator('#vectorize-job').isVisible()).toBe(true);
      await page.screenshot({ path: artifact('jobs-01-queued.png') });
    } finally {
      held.release();
    }
    await loaded(page, '[data-testid=svg-preview]');
    expect(await page.locator('#vectorize-job-status').textContent()).toBe('Job succeeded');
    expect(await page.evaluate('document.getElementById("vectorize-job-progress").value')).toBe(1);
    expect(await page.locator('#vectorize-job-cancel').isDisabled()).toBe(true);
    await page.screenshot({ path: artifact('jobs-02-done.png'), fullPage: true });

    // What the page asked: one POST with Prefer: respond-async, GETs of the job, then its output.
    const post = requests.filter((r) => r.method === 'POST' && r.url.endsWith('/api/v1/vectorize'));
    expect(post).toHaveLength(1);
    expect(post[0]!.prefer).toBe('respond-async');
    const id = (await page.evaluate('document.getElementById("vectorize-job").dataset.jobId')) as string;
    expect(id).toMatch(/^job_[0-9a-f]{24}$/);
    expect(requests.some((r) => r.method === 'GET' && r.url.endsWith(`/api/v1/jobs/${id}`))).toBe(true);
    expect(requests.some((r) => r.method === 'GET' && r.url.endsWith(`/api/v1/jobs/${id}/output`))).toBe(true);
    // The numbers shown are the job's result (the synchronous answer's X- headers).
    const job = (await (await fetch(`${t.url}/api/v1/jobs/${id}`, { headers: { 'x-api-key': t.key } })).json()) as { result: { headers: Record<string, string> } };
    const shown = await page.locator('#vectorize-out').innerText();
    expect(shown).toContain(`Shapes\n${job.result.headers['X-Paths']}`);
  }, 300_000);
});
