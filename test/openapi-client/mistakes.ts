// Calls the generated types must refuse: type-checked with client.ts, each line below must be a type error
// (an `@ts-expect-error` that finds no error fails the check), so the type-check in
// test/http/openapi-client.test.ts is shown to bite.
import createClient from 'openapi-fetch';
import type { paths } from './schema.js';
import { formData } from './client.js';

export async function mistakes(png: Blob): Promise<void> {
  const api = createClient<paths>({ baseUrl: 'http://127.0.0.1:1' });
  // @ts-expect-error halftone_lpi is a number
  await api.POST('/api/v1/fix', { body: { image: png, halftone_lpi: 'coarse' }, bodySerializer: formData });
  // @ts-expect-error the image part is required
  await api.POST('/api/v1/scan', { body: { print_width_inches: 10 }, bodySerializer: formData });
  // @ts-expect-error detail is one of smoother, balanced, precise
  await api.POST('/api/v1/vectorize', { body: { image: png, detail: 'max' }, bodySerializer: formData });
  // @ts-expect-error GET /garments/style needs its key
  await api.GET('/api/v1/garments/style', { params: { query: {} } });
  // @ts-expect-error no such path in the document (the page's files are not the API)
  await api.GET('/web/app.js');
  const scan = await api.POST('/api/v1/scan', { body: { image: png }, bodySerializer: formData });
  // @ts-expect-error the scan report has no such field
  void scan.data?.colour_count;
  // @ts-expect-error POST /scan never answers queue_full (that is POST /vectorize)
  void (scan.error?.code === 'queue_full');
}
