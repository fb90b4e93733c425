// Every engine op by name. Adding an op = one import and one line here; the worker, the Engine facade
// and its types all derive from this table.
import { infoOp } from './info.js';
import { mockupOp } from './mockup.js';
import { scanOp } from './scan.js';
import { fixOp } from './fix.js';
import { removeBgOp } from './remove-bg.js';
import { upscaleOp } from './upscale.js';
import { vectorizeOp } from './vectorize.js';
import type { TextOptions } from '../options/validate.js';

export const OPS = {
  info: infoOp,
  mockup: mockupOp,
  scan: scanOp,
  fix: fixOp,
  removeBg: removeBgOp,
  upscale: upscaleOp,
  vectorize: vectorizeOp,
} as const;

export type OpName = keyof typeof OPS;
type Def<K extends OpName> = (typeof OPS)[K];
/** Typed options of op K (literal unions, numbers, booleans; text forms only through `textOptions`). */
export type OptionsOf<K extends OpName> = Exclude<NonNullable<Parameters<Def<K>['resolve']>[0]>, TextOptions>;
/** Options of op K after validation. */
export type ResolvedOf<K extends OpName> = ReturnType<Def<K>['resolve']>;
/** What op K returns. */
export type ResultOf<K extends OpName> = Awaited<ReturnType<Def<K>['run']>>;

export function isOpName(name: string): name is OpName {
  return Object.prototype.hasOwnProperty.call(OPS, name);
}
