// POST /api/v1/scan (JSON report, spec 4.1) and POST /api/v1/fix (PNG, spec 4.2): engine ops `scan` and `fix`.
import { binary, json } from '../http/reply.js';
import { scanReportWire } from '../http/wire.js';
import { postImageRoute, type RouteDef } from './define.js';

export const scanRoute: RouteDef = postImageRoute({
  path: '/api/v1/scan',
  op: 'scan',
  respond: (report) => json(scanReportWire(report)),
});

export const fixRoute: RouteDef = postImageRoute({
  path: '/api/v1/fix',
  op: 'fix',
  // X-Warnings: comma list of warning codes, empty when none (as on POST /mockup)
  respond: (out) => binary(out.data, out.contentType, { 'X-Width': String(out.width), 'X-Height': String(out.height), 'X-DPI': String(out.dpi), 'X-Warnings': out.warnings.map((w) => w.code).join(',') }),
});
