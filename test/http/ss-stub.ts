// A local S&S Activewear API for catalog tests: style 39 (Gildan 5000) in Red and Black, no rows for any other
// style, no photos. `baseUrl` is the connector's base (INKPREP_SS_BASE_URL for a CLI child process).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const SS_RED = '#b01c28';
export const SS_BLACK = '#101010';

export interface SsStub {
  baseUrl: string;
  close(): Promise<void>;
}

export async function startSsStub(): Promise<SsStub> {
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const json = (b: unknown) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(JSON.stringify(b)); };
    const row = (color: string, hex: string) => ({ sku: `S${color}M`, styleID: 39, colorName: color, color1: hex, sizeName: 'M', sizeOrder: 'C', qty: 5 });
    if (u.pathname === '/v2/styles/39') return json([{ styleID: 39, brandName: 'Gildan', styleName: '5000', title: 'Heavy Cotton T-Shirt', baseCategory: 'T-Shirts' }]);
    if (u.pathname === '/v2/products/' && u.searchParams.get('styleid') === '39') return json([row('Red', SS_RED), row('Black', SS_BLACK)]);
    if (u.pathname.startsWith('/v2/')) return json([]);
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v2`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
