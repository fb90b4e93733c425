// The first-start fetch of the default segmentation model (`npm start`): only on opt-in (INKPREP_FETCH_MODEL=1,
// the weights' terms are unclear); without it one log line states why and how to opt in. Skipped when a model is
// named; a cached model is reported ready; a failed fetch is a logged warning (never a crash).
import { mkdtempSync, readdirSync, writeFileSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
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
  it('fetches only on opt-in: INKPREP_FETCH_MODEL=1/true/yes; unset, 0 or anything else is no', () => {
    for (const v of ['1', 'true', 'yes', ' YES ']) expect(configFromEnv({ INKPREP_FETCH_MODEL: v }).engine.fetchModel).toBe(true);
    for (const v of [undefined, '', '0', 'false', 'no', 'maybe']) expect(configFromEnv({ INKPREP_FETCH_MODEL: v }).engine.fetchModel).toBe(false);
    // A named model is the operator's: never fetched, even on opt-in.
    expect(configFromEnv({ INKPREP_FETCH_MODEL: '1', INKPREP_SEGMENTATION_MODEL: '/m.onnx' }).engine.fetchModel).toBe(false);
  });

  it('without the opt-in and with no model cached, logs once why (the weights\' terms) and how to opt in, and fetches nothing', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'inkprep-af-'));
    for (const env of [{ INKPREP_MODEL_DIR: dir }, { INKPREP_FETCH_MODEL: '0', INKPREP_MODEL_DIR: dir }]) {
      const r = recorder();
      await startModelAutoFetch(r.log, configFromEnv(env).engine, null);
      expect(r.lines).toHaveLength(1);
      expect(r.lines[0]).toMatchObject({ level: 'warn', fields: { model: DEFAULT_MODEL, dir, notice: 'THIRD_PARTY_NOTICES.md' } });
      const msg = r.lines[0]!.msg;
      expect(msg).toMatch(/not clearly licensed for commercial use/);
      expect(msg).toMatch(/AGPL-3\.0/);
      expect(msg).toMatch(/THIRD_PARTY_NOTICES\.md/);
      expect(msg).toMatch(/INKPREP_FETCH_MODEL=1/);
      expect(msg).toMatch(/INKPREP_SEGMENTATION_MODEL=\/path\/to\/model\.onnx/);
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it('says nothing when a model is named (a path, or none), or in a cluster process other than slot 0', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'inkprep-af-'));
    for (const env of [{ INKPREP_SEGMENTATION_MODEL: 'none', INKPREP_MODEL_DIR: dir }, { INKPREP_SEGMENTATION_MODEL: '/m.onnx', INKPREP_MODEL_DIR: dir }, { INKPREP_CLUSTER_SLOT: '1', INKPREP_MODEL_DIR: dir }, { INKPREP_CLUSTER_SLOT: '1', INKPREP_FETCH_MODEL: '1', INKPREP_MODEL_DIR: dir }]) {
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
    await startModelAutoFetch(r.log, configFromEnv({ INKPREP_FETCH_MODEL: '1', INKPREP_MODEL_DIR: dir }).engine, null);
    expect(r.lines).toEqual([expect.objectContaining({ level: 'info', msg: 'segmentation model ready' })]);
    // Cached (the user fetched it): no notice without the opt-in either.
    const quiet = recorder();
    await startModelAutoFetch(quiet.log, configFromEnv({ INKPREP_MODEL_DIR: dir }).engine, null);
    expect(quiet.lines).toEqual([]);
  });

  it('a fetch that cannot run is a logged warning, and remove-bg keeps its 422 for photos', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'inkprep-af-'));
    const r = recorder();
    // npm not on PATH: the fetch fails at once.
    const saved = process.env.PATH;
    process.env.PATH = dir;
    try {
      await startModelAutoFetch(r.log, configFromEnv({ INKPREP_FETCH_MODEL: '1', INKPREP_MODEL_DIR: dir }).engine, null);
    } finally {
      process.env.PATH = saved;
    }
    expect(r.lines[0]).toMatchObject({ level: 'info', msg: expect.stringMatching(/^fetching the segmentation model in the background/) });
    expect(r.lines[1]).toMatchObject({ level: 'warn', msg: expect.stringMatching(/fetch failed/) });
  });
});

describe('inkprep models fetch asks for consent', () => {
  it('states the terms and, without --accept-terms and off a terminal, exits 2 with a usage message, fetching nothing', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'inkprep-mf-'));
    const main = fileURLToPath(new URL('../../adapter-http/dist/cli/main.js', import.meta.url));
    const r = spawnSync(process.execPath, [main, 'models', 'fetch', '--dir', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/not clearly licensed for commercial use/);
    const last = JSON.parse(r.stderr.trim().split('\n').at(-1)!) as { code: string; error: string; usage: string };
    expect(last).toMatchObject({ code: 'usage', error: expect.stringMatching(/--accept-terms/) });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('--help and the catalogue say the terms are unclear', () => {
    const main = fileURLToPath(new URL('../../adapter-http/dist/cli/main.js', import.meta.url));
    const help = spawnSync(process.execPath, [main, 'models', '--help'], { encoding: 'utf8' }).stdout;
    expect(help).toMatch(/--accept-terms/);
    expect(help).toMatch(/INKPREP_FETCH_MODEL=1/);
    expect(MODEL_CATALOG[DEFAULT_MODEL].licence).toMatch(/^unclear: package AGPL-3\.0 \(LICENSE\.md covers dist\/\), its ThirdPartyLicenses\.json says MIT/);
    const serveHelp = spawnSync(process.execPath, [main, 'serve', '--help'], { encoding: 'utf8' }).stdout;
    expect(serveHelp).toMatch(/INKPREP_FETCH_MODEL \(unset or 0: never; 1:/);
  });
});
