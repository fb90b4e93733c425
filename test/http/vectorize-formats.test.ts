// POST /api/v1/vectorize with output_format (spec 4.8) over real HTTP, on both transports: PDF, EPS and DXF
// come with their Content-Type and the same X-* stat headers as the SVG of the same upload; the bodies are
// read back by real readers (poppler, Ghostscript, dxf-parser; the render checks skip with the reason printed
// when the tools are missing); a format or unit outside the documented words is 400 invalid_option naming it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { brokenLimits } from '../../golden/lib/golden.js';
import { compareRasters, rasteriseSvg } from '../../golden/lib/metrics.js';
import { READERS, parseDxf, pdfInfo, renderEps, renderPdf } from '../engine/vectorize/formats/readers.js';
import { form, post, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
let logo: Uint8Array;
beforeAll(async () => {
  t = await startTestServer({ config: { threads: 1 } });
  // a red ring (transparent counter) and a blue bar on transparency: two inks, a hole, nothing symmetric
  const ring = `<svg xmlns="http://www.w3.org/2000/svg" width="160" height="100"><path fill-rule="evenodd" fill="#e63946" d="M50 10a40 40 0 1 0 .01 0zM50 32a18 18 0 1 1-.01 0z"/><rect x="100" y="10" width="50" height="30" fill="#264653"/></svg>`;
  logo = new Uint8Array(await sharp(Buffer.from(ring)).png().toBuffer());
});
afterAll(async () => {
  await t.close();
});

const CONTENT_TYPE = { svg: /^image\/svg\+xml/, pdf: /^application\/pdf$/, eps: /^application\/postscript$/, dxf: /^image\/vnd\.dxf$/ } as const;

describe('POST /api/v1/vectorize output_format', () => {
  it('svg, pdf, eps and dxf: right Content-Type, the same X-Paths and X-Colors-Used, readable bodies', async () => {
    const res = Object.fromEntries(await Promise.all((['svg', 'pdf', 'eps', 'dxf'] as const).map(async (f) => [f, await post(t, '/api/v1/vectorize', form(logo, f === 'svg' ? {} : { output_format: f }))] as const)));
    const svg = res.svg!;
    expect(svg.status).toBe(200);
    expect(Number(svg.headers.get('x-paths'))).toBeGreaterThanOrEqual(3); // ring outline, its counter, the bar
    expect(svg.headers.get('x-colors-used')).toBe('2');
    for (const f of ['svg', 'pdf', 'eps', 'dxf'] as const) {
      const r = res[f]!;
      expect(r.status, f).toBe(200);
      expect(r.headers.get('content-type'), f).toMatch(CONTENT_TYPE[f]);
      expect(r.headers.get('x-paths'), f).toBe(svg.headers.get('x-paths'));
      expect(r.headers.get('x-colors-used'), f).toBe(svg.headers.get('x-colors-used'));
      expect(r.headers.get('x-trace-ms'), f).toMatch(/^\d+$/);
      expect(r.headers.get('x-queue-ms'), f).toMatch(/^\d+$/);
    }
    expect(Buffer.from(res.pdf!.bytes.subarray(0, 8)).toString('latin1')).toBe('%PDF-1.4');
    expect(Buffer.from(res.eps!.bytes.subarray(0, 23)).toString('latin1')).toBe('%!PS-Adobe-3.0 EPSF-3.0');
    const dxf = parseDxf(Buffer.from(res.dxf!.bytes).toString('utf8'));
    expect(dxf.layers.sort()).toEqual(['264653', 'E63946']);
    expect(dxf.polylines.length).toBe(Number(svg.headers.get('x-paths')));
    expect(dxf.header.$INSUNITS).toBe(1);
  });

  it.skipIf(!READERS.poppler || !READERS.gs)(`the PDF and EPS bodies render like the SVG body${READERS.reason ? ` (${READERS.reason})` : ''}`, async () => {
    const [svg, pdf, eps] = await Promise.all(([{}, { output_format: 'pdf' }, { output_format: 'eps' }] as Record<string, string>[]).map((f) => post(t, '/api/v1/vectorize', form(logo, f))));
    const ref = await rasteriseSvg(svg!.bytes, 320);
    expect(pdfInfo(pdf!.bytes).complaints).toBe('');
    const fromPdf = compareRasters(await renderPdf(pdf!.bytes, 144), ref);
    expect(brokenLimits(fromPdf)).toEqual([]);
    const fromEps = await renderEps(eps!.bytes, 144);
    expect(fromEps.complaints).toBe('');
    expect(brokenLimits(compareRasters(fromEps.raster, ref))).toEqual([]);
  });

  it('dxf_units=mm with print_width_inches: millimetre coordinates over the physical width', async () => {
    const r = await post(t, '/api/v1/vectorize', form(logo, { output_format: 'dxf', dxf_units: 'mm', print_width_inches: '10' }));
    expect(r.status).toBe(200);
    const dxf = parseDxf(Buffer.from(r.bytes).toString('utf8'));
    expect(dxf.header.$INSUNITS).toBe(4);
    expect(dxf.header.$LIMMAX).toMatchObject({ x: 254, y: 158.75 });
    const xs = dxf.polylines.flatMap((p) => p.points.map((q) => q.x));
    expect(Math.max(...xs)).toBeCloseTo((150 / 160) * 254, 0); // the bar's right edge at x = 150 px
  });

  it('an unknown format or unit is 400 invalid_option naming the field', async () => {
    for (const [field, value] of [['output_format', 'png'], ['output_format', 'PDF'], ['output_format', 'svgz'], ['dxf_units', 'ft'], ['dxf_units', 'inch']] as const) {
      const r = await post(t, '/api/v1/vectorize', form(logo, { [field]: value }));
      expect(r.status, `${field}=${value}`).toBe(400);
      expect(r.json, `${field}=${value}`).toMatchObject({ code: 'invalid_option', field });
    }
  });
});
