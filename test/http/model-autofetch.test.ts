// The first-start fetch of the default segmentation model (`npm start`): skipped when opted out or when a model
// is named, reports a cached model as ready, and a failed fetch is a logged warning (never a crash).
import { mkdtempSync, writeFileSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MODEL_CATALOG, DEFAULT_MODEL } from '@inkprep/engine';
import { startModelAutoFetch } from '../../adapter-http/src/model-autofetch.js';
import { configFromEnv } from '../../adapter-http/src/config.js';
import type { Logger } from '../../adapter-http/src/log.js';

function recorder(): { log: Logger; lines: { level: string; msg: string; fields?: Record<string, unknown> }[] } {
  const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>): void => { lines.push({ level, msg, fields }); };
  const log = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), enabled: () => true, raw: (level: string, msg: string) => lines.push({ level, msg }) } as unknown as Logger;
  return { log, lines };
}

describe('model auto-fetch on serve', () => {
  it('does nothing when opted out (INKPREP_FETCH_MODEL=0), when a model is named, or in a cluster process other than slot 0', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'inkprep-af-'));
    for (const env of [{ INKPREP_FETCH_MODEL: '0', INKPREP_MODEL_DIR: dir }, { INKPREP_SEGMENTATION_MODEL: 'none', INKPREP_MODEL_DIR: dir }, { INKPREP_SEGMENTATION_MODEL: '/m.onnx', INKPREP_MODEL_DIR: dir }, { INKPREP_CLUSTER_SLOT: '1', INKPREP_MODEL_DIR: dir }]) {
      const r = recorder();
      const config = configFromEnv(env);
      await startModelAutoFetch(r.log, config.engine, config.clusterSlot);
      expect(r.lines).toEqual([]);
    }
  });

  it('reports a cached default model as ready without fetching', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'inkprep-af-'));
    const f = path.join(dir, `${DEFAULT_MODEL}.onnx`);
    writeFileSync(f, '');
    truncateSync(f, MODEL_CATALOG[DEFAULT_MODEL].size); // the pinned size (sparse): what the engine checks per call
    const r = recorder();
    await startModelAutoFetch(r.log, configFromEnv({ INKPREP_MODEL_DIR: dir }).engine, null);
    expect(r.lines).toEqual([expect.objectContaining({ level: 'info', msg: 'segmentation model ready' })]);
  });

  it('a fetch that cannot run is a logged warning, and remove-bg keeps its 422 for photos', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'inkprep-af-'));
    const r = recorder();
    // npm not on PATH: the fetch fails at once.
    const saved = process.env.PATH;
    process.env.PATH = dir;
    try {
      await startModelAutoFetch(r.log, configFromEnv({ INKPREP_MODEL_DIR: dir }).engine, null);
    } finally {
      process.env.PATH = saved;
    }
    expect(r.lines[0]).toMatchObject({ level: 'info', msg: expect.stringMatching(/^fetching the segmentation model in the background/) });
    expect(r.lines[1]).toMatchObject({ level: 'warn', msg: expect.stringMatching(/fetch failed/) });
  });
});
