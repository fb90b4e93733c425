// THE route table: every endpoint of the service. Adding an endpoint = one entry here built with
// getRoute() or postImageRoute() (routes/define.ts); see docs/guides/extending.md ("Adding an endpoint").
import type { RouteDef } from './define.js';
import { fixRoute, scanRoute } from './scan-fix.js';
import { underbaseRoute } from './underbase.js';
import { gangsheetRoute } from './gangsheet.js';
import { removeBgRoute } from './remove-bg.js';
import { upscaleHeldRoute, upscaleResultRoute, upscaleRoute } from './upscale.js';
import { vectorizeRoute } from './vectorize.js';
import { MOCKUP_ROUTES } from './mockup.js';
import { JOB_ROUTES } from './jobs.js';
import { mockupBatchRoute } from './mockup-batch.js';
import { WEB_ROUTES } from './web.js';
import { openApiRoute } from './openapi.js';
import { healthRoute, readyRoute, removeBgStatusRoute, upscaleStatusRoute, vectorizeStatusRoute } from './status.js';

export const ROUTES: readonly RouteDef[] = [
  healthRoute,
  readyRoute,
  // the document of this very table (read when first served, once ROUTES is complete)
  openApiRoute(() => ROUTES),
  vectorizeStatusRoute,
  removeBgStatusRoute,
  upscaleStatusRoute,
  scanRoute,
  fixRoute,
  underbaseRoute,
  gangsheetRoute,
  removeBgRoute,
  vectorizeRoute,
  upscaleRoute,
  upscaleResultRoute,
  upscaleHeldRoute,
  ...MOCKUP_ROUTES,
  mockupBatchRoute,
  // jobs of Prefer: respond-async (any metered POST above)
  ...JOB_ROUTES,
  // The try-it page at GET / (not part of /api/v1).
  ...WEB_ROUTES,
];
