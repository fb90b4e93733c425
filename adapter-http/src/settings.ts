// Operator settings read at run time from the store (never cached), with typed accessors and defaults.
// `inkprep admin setting set NAME VALUE` changes them; GET /api/v1/upscale reports them live.
import { InkprepError } from '@inkprep/engine';
// Internal: the engine's own upscale budgets are the settings' defaults, so the two cannot disagree.
import { DEFAULT_BUDGET, DEFAULT_BUDGET_4X } from '@inkprep/engine/internals';
import type { Store } from './store/types.js';

/** Every setting: default value and the accepted range (all are positive integers). */
export const SETTINGS = {
  /** Pixels the upscaler runs at for 2x; larger input (up to 4x this) is shrunk to it first. Default: the engine's (1,500,000). */
  'upscale.budget': { default: DEFAULT_BUDGET, min: 1, max: 1_000_000_000 },
  /** Pixels the upscaler runs at for 4x; larger input (up to 4x this) is shrunk to it first. Default: the engine's (750,000). */
  'upscale.budget4x': { default: DEFAULT_BUDGET_4X, min: 1, max: 1_000_000_000 },
  /** Largest remove-bg input in pixels (spec: 25 megapixels). */
  'remove_bg.maxPixels': { default: 25_000_000, min: 1, max: 1_000_000_000 },
} as const satisfies Record<string, { default: number; min: number; max: number }>;

export type SettingName = keyof typeof SETTINGS;

/** Upscale input over the budget is shrunk automatically, up to this many times the budget in pixels (2x linear). */
export const UPSCALE_SHRINK_ALLOWANCE = 4;

export function isSettingName(n: string): n is SettingName {
  return Object.prototype.hasOwnProperty.call(SETTINGS, n);
}

/** Validate a setting value (text or number); throws `invalid_option` naming the setting. */
export function parseSetting(name: SettingName, raw: unknown): number {
  const def = SETTINGS[name];
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < def.min || n > def.max) {
    throw new InkprepError('invalid_option', `Expected an integer from ${def.min} to ${def.max} for ${name} but received ${JSON.stringify(raw)}`, { field: name });
  }
  return n;
}

/** Current value of a setting (store value if valid, else the default). */
export async function getSetting(store: Store, name: SettingName): Promise<number> {
  const v = await store.getSetting(name);
  if (typeof v === 'number' && Number.isInteger(v) && v >= SETTINGS[name].min && v <= SETTINGS[name].max) return v;
  return SETTINGS[name].default;
}

/** Upscale caps as GET /api/v1/upscale reports them (spec 2.4), read now. */
export interface UpscaleLimits {
  /** Largest input for 2x, including the auto-shrink allowance (= budget x 4). */
  maxPixels: number;
  /** Largest input for 4x, including the auto-shrink allowance (= budget4x x 4). */
  maxPixels4x: number;
  /** Pixels the 2x upscaler runs at. */
  budget: number;
  /** Pixels the 4x upscaler runs at. */
  budget4x: number;
}

/** Read the upscale caps from the store now (operators can change them while the server runs). */
export async function getUpscaleLimits(store: Store): Promise<UpscaleLimits> {
  const budget = await getSetting(store, 'upscale.budget');
  const budget4x = await getSetting(store, 'upscale.budget4x');
  return { maxPixels: budget * UPSCALE_SHRINK_ALLOWANCE, maxPixels4x: budget4x * UPSCALE_SHRINK_ALLOWANCE, budget, budget4x };
}
