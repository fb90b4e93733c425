// Garment catalog: the S&S Activewear v2 connector against a local HTTP server of ours answering the
// documented shapes (styles, products per colour x size, specs), including malformed, slow and down
// suppliers; chest parsing rules; caching; prices never returned; the Catalog degrading to the other
// suppliers with a warning; own blanks search and detail.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusOf } from '../../adapter-http/src/errors/registry.js';
import { Catalog, chestFromSpecs, parseInches, SsActivewearConnector, ownConnector, type SsConfig } from '../../adapter-http/src/catalog/index.js';

type Mode = 'ok' | 'malformed' | 'slow' | 'error' | 'badshape';

const STYLES = [
  { styleID: 39, partNumber: '00760', brandName: 'Gildan', styleName: '5000', title: 'Heavy Cotton T-Shirt', baseCategory: 'T-Shirts', styleImage: 'Images/Style/39_fm.jpg' },
  { styleID: 4190, partNumber: '88750', brandName: 'Gildan', styleName: '18500', title: 'Heavy Blend Hooded Sweatshirt', baseCategory: 'Fleece', styleImage: 'Images/Style/4190_fm.jpg' },
];
function product(color: string, code: string, hex: string, size: string, order: string, qty: number) {
  return {
    sku: `B00760${code}${order}`, styleID: 39, brandName: 'Gildan', styleName: '5000', colorName: color, colorCode: code, color1: hex,
    colorFrontImage: `Images/Color/${code}_f_fm.jpg`, colorBackImage: `Images/Color/${code}_b_fm.jpg`,
    sizeName: size, sizeOrder: order, qty, piecePrice: 2.35, dozenPrice: 2.1, casePrice: 1.95, customerPrice: 2.2, mapPrice: 5, salePrice: 1.5,
  };
}
const PRODUCTS = [
  product('Black', '02', '#000000', 'S', 'B', 120), product('Black', '02', '#000000', 'M', 'C', 0), product('Black', '02', '#000000', '3XL', 'G', 5),
  product('Sport Grey', '18', '#9E9E9E', 'S', 'B', 3), product('Sport Grey', '18', '#9E9E9E', 'M', 'C', 9),
];
const SPECS = [
  { specID: 1, styleID: 39, sizeName: 'S', sizeOrder: 'B', specName: 'Body Width', value: '18' },
  { specID: 2, styleID: 39, sizeName: 'M', sizeOrder: 'C', specName: 'Body Width', value: '20 1/2"' },
  { specID: 3, styleID: 39, sizeName: 'M', sizeOrder: 'C', specName: 'Chest', value: '38-40' },
  { specID: 4, styleID: 39, sizeName: '3XL', sizeOrder: 'G', specName: 'Body Width', value: 'see chart' },
  { specID: 5, styleID: 39, sizeName: 'S', sizeOrder: 'B', specName: 'Body Length', value: '28' },
];

let server: http.Server;
let base = '';
let mode: Mode = 'ok';
let requests: string[] = [];
let lastAuth = '';

beforeAll(async () => {
  server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    lastAuth = req.headers.authorization ?? '';
    const u = new URL(req.url ?? '/', 'http://x');
    const send = (body: unknown, status = 200) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    if (lastAuth !== `Basic ${Buffer.from('12345:secret-key').toString('base64')}`) return send({ message: 'unauthorized' }, 401);
    if (mode === 'slow') {
      const t = setTimeout(() => send([]), 60_000); // far beyond SLOW.timeoutMs
      res.on('close', () => clearTimeout(t));
      return;
    }
    if (mode === 'error') return send({ message: 'internal' }, 503);
    if (mode === 'malformed') return send('[{"styleID": 39, "brandName": "Gil');
    if (mode === 'badshape') return send({ styles: 'not a list' });
    if (u.pathname === '/v2/styles') {
      const q = (u.searchParams.get('search') ?? '').toLowerCase();
      const hits = STYLES.filter((s) => `${s.brandName} ${s.styleName} ${s.title} ${s.baseCategory}`.toLowerCase().includes(q));
      return hits.length ? send(hits) : send([{ errors: 'not found' }].slice(0, 0), 404);
    }
    if (u.pathname === '/v2/styles/39') return send([STYLES[0]]);
    if (u.pathname === '/v2/styles/77') return send([], 404);
    if (u.pathname === '/v2/products/') return send(u.searchParams.get('styleid') === '39' ? PRODUCTS : []);
    if (u.pathname === '/v2/specs/') return send(u.searchParams.get('style') === '39' ? SPECS : []);
    send({ message: 'no route' }, 404);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

// Answers of the local stub get a generous timeout and catalogue deadline (only a hang guard: on a busy
// machine a local answer can take seconds); the slow-supplier cases set the short timeout they test (SLOW).
const ROOMY = 30_000;
const SLOW = { timeoutMs: 1500 };
function cfg(over: Partial<SsConfig> = {}): SsConfig {
  return { baseUrl: base, account: '12345', apiKey: 'secret-key', imageBase: 'https://img.example/', timeoutMs: ROOMY, ttlMs: 60_000, ...over };
}
const sig = () => new AbortController().signal;

describe('chest spec parsing', () => {
  it('parses inches, fractions, marks and ranges; rejects text', () => {
    expect(parseInches('18')).toBe(18);
    expect(parseInches('20 1/2"')).toBe(20.5);
    expect(parseInches('21½ in')).toBe(21.5);
    expect(parseInches('38-40')).toBe(39);
    expect(parseInches('see chart')).toBeNull();
    expect(parseInches('')).toBeNull();
    expect(parseInches(null)).toBeNull();
  });
  it('Body Width / Chest Width is flat, Chest is halved, flat wins, unparseable gives none', () => {
    expect(chestFromSpecs([
      { sizeName: 'S', specName: 'Chest Width', value: '18' },
      { sizeName: 'M', specName: 'Chest', value: '40' },
      { sizeName: 'L', specName: 'Chest', value: '44' },
      { sizeName: 'L', specName: 'Body Width', value: '23' },
      { sizeName: 'XL', specName: 'Body Width', value: 'n/a' },
      { sizeName: '2XL', specName: 'Sleeve Length', value: '9' },
    ])).toEqual({ S: 18, M: 20, L: 23 });
  });
});

describe('S&S Activewear connector', () => {
  it('searches with HTTP Basic auth and returns 2.7 rows with colour counts', async () => {
    mode = 'ok'; requests = [];
    const ss = new SsActivewearConnector(cfg());
    const rows = await ss.search('gildan 5000', sig());
    expect(lastAuth).toBe(`Basic ${Buffer.from('12345:secret-key').toString('base64')}`);
    expect(requests[0]).toBe('/v2/styles?search=gildan%205000');
    expect(rows).toEqual([{
      key: 'ss:39', supplier: 'ss', brand: 'Gildan', style_number: '5000', title: 'Heavy Cotton T-Shirt', category: 'T-Shirts',
      thumb: 'https://img.example/Images/Style/39_fm.jpg', color_count: 2,
    }]);
    expect(await ss.search('nothing-like-this', sig())).toEqual([]);
    expect(await ss.search(undefined, sig())).toEqual([]);
  });

  it('style detail: colours x sizes with sku and stock, chest parsed from specs, no prices; cached', async () => {
    mode = 'ok'; requests = [];
    const ss = new SsActivewearConnector(cfg());
    const d = (await ss.style('39', sig()))!;
    expect(d).toMatchObject({ key: 'ss:39', brand: 'Gildan', style_number: '5000', category: 'T-Shirts', sizes: ['S', 'M', '3XL'] });
    expect(d.chest_by_size_in).toEqual({ S: 18, M: 20.5 });
    expect(d.colors.map((c) => [c.id, c.name, c.hex])).toEqual([['black', 'Black', '#000000'], ['sport-grey', 'Sport Grey', '#9e9e9e']]);
    expect(d.colors[0]!.images).toEqual({ front: 'https://img.example/Images/Color/02_f_fm.jpg', back: 'https://img.example/Images/Color/02_b_fm.jpg' });
    expect(d.colors[0]!.sizes).toEqual([
      { size: 'S', sku: 'B0076002B', in_stock: true }, { size: 'M', sku: 'B0076002C', in_stock: false }, { size: '3XL', sku: 'B0076002G', in_stock: true },
    ]);
    expect(d.placements.map((p) => p.id)).toContain('full-front');
    expect(JSON.stringify(d)).not.toMatch(/price/i);
    const n = requests.length;
    await ss.style('39', sig());
    expect(requests.length).toBe(n);
    expect(await ss.style('77', sig())).toBeNull();
    expect(await ss.style('../etc', sig())).toBeNull();
  });

  it('malformed, wrongly shaped, failing and slow answers throw readable errors', async () => {
    const ss = () => new SsActivewearConnector(cfg());
    mode = 'malformed';
    await expect(ss().search('gildan', sig())).rejects.toThrow(/malformed JSON/);
    mode = 'badshape';
    await expect(ss().search('gildan', sig())).rejects.toThrow(/unexpected shape/);
    mode = 'error';
    await expect(ss().search('gildan', sig())).rejects.toThrow(/HTTP 503/);
    mode = 'slow';
    await expect(new SsActivewearConnector(cfg(SLOW)).search('gildan', sig())).rejects.toThrow(/within 1500 ms/);
    mode = 'ok';
    await expect(new SsActivewearConnector(cfg({ apiKey: 'wrong' })).search('gildan', sig())).rejects.toThrow(/HTTP 401/);
  });
});

describe('Catalog across suppliers', () => {
  it('own blanks: featured without q, search by words, detail with colours, sizes, chest and placements', async () => {
    const c = new Catalog();
    const featured = await c.search(undefined, undefined);
    expect(featured.styles.map((s) => s.key)).toEqual(['own:classic-tee', 'own:womens-tee', 'own:long-sleeve-tee', 'own:hoodie']);
    expect(featured.suppliers).toEqual([{ id: 'own', name: 'inkprep blanks', status: 'ok', count: 4 }]);
    expect((await c.search('hooded sweatshirt', 'own')).styles.map((s) => s.key)).toEqual(['own:hoodie']);
    expect((await c.search('IP100', undefined)).styles.map((s) => s.key)).toEqual(['own:classic-tee']);
    const d = await c.style('own:classic-tee');
    expect(d.chest_by_size_in).toMatchObject({ XS: 16.5, L: 22, '3XL': 28 });
    expect(d.colors.length).toBeGreaterThanOrEqual(8);
    expect(d.colors.map((x) => x.id)).toEqual(expect.arrayContaining(['white', 'black', 'navy', 'heather-grey', 'red', 'royal', 'forest', 'sand']));
    expect(d.placements.find((p) => p.id === 'left-chest')).toEqual({ id: 'left-chest', name: 'Left Chest', view: 'front', default_width_in: 3.5, max_width_in: 4.5, default_top_in: 3 });
    const hood = await c.style('own:hoodie');
    expect(hood.placements.map((p) => p.id)).not.toContain('oversized');
  });

  it('own search matches the garment kinds and colour names users type', async () => {
    const c = new Catalog();
    const keys = async (q: string) => (await c.search(q, 'own')).styles.map((s) => s.key.slice(4));
    const tees = ['classic-tee', 'womens-tee', 'long-sleeve-tee'];
    for (const q of ['t-shirt', 'T-Shirts', 'tee', 'tees', 't shirt', 'tshirt', 'shirt']) expect(await keys(q), q).toEqual(tees);
    for (const q of ['hoodie', 'hoody', 'hooded', 'hood', 'sweatshirt', 'pullover']) expect(await keys(q), q).toEqual(['hoodie']);
    for (const q of ['long sleeve', 'long-sleeve', 'longsleeve', 'long sleeve tee']) expect(await keys(q), q).toEqual(['long-sleeve-tee']);
    for (const q of ["women's tee", 'womens t-shirt', 'ladies']) expect(await keys(q), q).toEqual(['womens-tee']);
    expect(await keys('tee black')).toEqual(tees);
    expect(await keys('black hoodie')).toEqual(['hoodie']);
    expect(await keys('heather gray hoodie')).toEqual(['hoodie']);
    expect(await keys('tee plaid')).toEqual([]);
    // A colour in the query shows the style in that colour.
    const navy = await c.search('navy tee', 'own');
    expect(navy.styles[0]!.thumb).toMatch(/color=navy/);
    expect((await c.search('green hoodie', 'own')).styles[0]!.thumb).toMatch(/color=forest/);
  });

  it('merges suppliers; one that is down, slow or malformed degrades to the others with a warning', async () => {
    const c = new Catalog({ connectors: [new SsActivewearConnector(cfg())], deadlineMs: ROOMY });
    mode = 'ok';
    const ok = await c.search('gildan', undefined);
    expect(ok.styles.map((s) => s.key)).toEqual(['ss:39', 'ss:4190']);
    expect(ok.suppliers.map((s) => s.status)).toEqual(['ok', 'ok']);
    expect(ok.warnings).toEqual([]);
    for (const m of ['slow', 'malformed'] as Mode[]) {
      mode = m;
      const r = await new Catalog({ connectors: [new SsActivewearConnector(cfg(m === 'slow' ? SLOW : {}))], deadlineMs: ROOMY }).search('tee', undefined);
      expect(r.styles.map((s) => s.key)).toEqual(['own:classic-tee', 'own:womens-tee', 'own:long-sleeve-tee']);
      expect(r.suppliers[1]).toMatchObject({ id: 'ss', status: 'unavailable', count: 0 });
      expect(r.warnings[0]!.code).toBe('supplier_unavailable');
      expect(r.warnings[0]!.message).toMatch(/S&S Activewear is unavailable/);
    }
    const down = new Catalog({ connectors: [new SsActivewearConnector(cfg({ baseUrl: 'http://127.0.0.1:9/v2' }))], deadlineMs: ROOMY });
    const r = await down.search('tee', undefined);
    expect(r.styles.length).toBe(3);
    expect(r.suppliers[1]!.status).toBe('unavailable');
    // The HTTP status comes from the adapter's one error registry, not from the error object.
    const err = await down.style('ss:39').then(() => null, (e: unknown) => e);
    expect(err).toMatchObject({ code: 'supplier_unavailable' });
    expect(statusOf((err as { code: 'supplier_unavailable' }).code)).toBe(503);
    mode = 'ok';
  });

  it('supplier filter and bad keys are 400 naming the field; garmentFor maps a supplier style for the mockup', async () => {
    mode = 'ok';
    const c = new Catalog({ connectors: [new SsActivewearConnector(cfg())], deadlineMs: ROOMY });
    expect((await c.search('gildan', 'ss')).styles.every((s) => s.supplier === 'ss')).toBe(true);
    await expect(c.search('x', 'acme')).rejects.toMatchObject({ code: 'invalid_option', details: { field: 'supplier' } });
    await expect(c.style('nokey')).rejects.toMatchObject({ code: 'invalid_option', details: { field: 'key' } });
    await expect(c.style('own:tuxedo')).rejects.toMatchObject({ code: 'invalid_option', details: { field: 'key' } });
    await expect(c.style('ss:77')).rejects.toMatchObject({ code: 'invalid_option' });
    const g = (await c.garmentFor('ss:39'))!;
    expect(g).toMatchObject({ key: 'ss:39', base: 'classic-tee', sizes: ['S', 'M', '3XL'], chest_by_size_in: { S: 18, M: 20.5 } });
    expect(await c.garmentFor('own:hoodie')).toBeUndefined();
    expect(ownConnector.id).toBe('own');
  });
});
