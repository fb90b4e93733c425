// Every engine op by name. Adding an op = one import and one line here; the worker, the Engine facade
// and its types all derive from this table.
import { infoOp } from './info.js';
import { mockupOp } from './mockup.js';
import { mockupBatchOp } from './mockup-batch.js';
import { scanOp } from './scan.js';
import { fixOp } from './fix.js';
import { removeBgOp } from './remove-bg.js';
import { upscaleOp } from './upscale.js';
import { vectorizeOp } from './vectorize.js';
import { underbaseOp } from './underbase.js';
import { gangsheetOp } from './gangsheet.js';
import type { TextOptions } from '../options/validate.js';
import { isMarkedResolved, markResolved } from '../options/resolved.js';

export const OPS = {
  info: infoOp,
  mockup: mockupOp,
  mockupBatch: mockupBatchOp,
  scan: scanOp,
  fix: fixOp,
  removeBg: removeBgOp,
  upscale: upscaleOp,
  vectorize: vectorizeOp,
  underbase: underbaseOp,
  gangsheet: gangsheetOp,
} as const;

/** The name of an engine op: `info`, `mockup`, `mockupBatch`, `scan`, `fix`, `removeBg`, `upscale`, `vectorize`, `underbase`, `gangsheet` (one method each on `Engine`). */
export type OpName = keyof typeof OPS;
type Def<K extends OpName> = (typeof OPS)[K];
/** Typed options of op K (literal unions, numbers, booleans; text forms only through `textOptions`). */
export type OptionsOf<K extends OpName> = Exclude<NonNullable<Parameters<Def<K>['resolve']>[0]>, TextOptions>;
/** Options of op K after validation. */
export type ResolvedOf<K extends OpName> = ReturnType<Def<K>['resolve']>;
/** What op K returns. */
export type ResultOf<K extends OpName> = Awaited<ReturnType<Def<K>['run']>>;

declare const RESOLVED: unique symbol;
/**
 * Options of op K resolved once at the boundary (`resolveOptions`): `engine.run` takes them as they are,
 * without resolving again. The brand is private: only `resolveOptions` (and the op's own helpers) make one.
 */
export type Resolved<K extends OpName> = ResolvedOf<K> & { readonly [RESOLVED]: K };

/** Validate options for op K once (typed, or text from `textOptions`); throws `invalid_option` naming the field. */
export function resolveOptions<K extends OpName>(op: K, raw?: OptionsOf<K> | TextOptions): Resolved<K> {
  const resolve = OPS[op].resolve as (r: unknown) => ResolvedOf<K>;
  return markResolved(op, resolve(raw) as object) as Resolved<K>;
}

/** True when `v` came from `resolveOptions(op, ...)` (in this thread). */
export function isResolved<K extends OpName>(op: K, v: unknown): v is Resolved<K> {
  return isMarkedResolved(op, v);
}

export function isOpName(name: string): name is OpName {
  return Object.prototype.hasOwnProperty.call(OPS, name);
}
