// The bench harness contract other suites rely on: mode sizing, rows with ratios, tables, JSON results.
import { describe, expect, it } from 'vitest';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { RESULTS_DIR, createContext, formatTable, withRatio, type Row } from '../../bench/lib/harness.js';

describe('bench harness', () => {
  it('withRatio divides by the named baseline row', () => {
    const rows = withRatio<Row>([{ name: 'base', 'mean ms': 4 }, { name: 'mine', 'mean ms': 10 }], 'base');
    expect(rows.map((r) => r['x baseline'])).toEqual([1, 2.5]);
    const rate = withRatio<Row>([{ name: 'a', 'req/s': 100 }, { name: 'b', 'req/s': 60 }], 'a', 'req/s');
    expect(rate[1]!['x a']).toBe(0.6);
    expect(() => withRatio([{ name: 'a', 'mean ms': 1 }], 'missing')).toThrow(/no row named/);
  });

  it('formatTable aligns columns and right-aligns numbers', () => {
    const text = formatTable('t', [{ name: 'a', 'mean ms': 1.23456, 'x baseline': 1 }, { name: 'longer name', 'mean ms': 1234.5, 'x baseline': 2.5 }]);
    const lines = text.split('\n');
    expect(lines[0]).toBe('== t');
    expect(lines[1]).toMatch(/^name\s+mean ms\s+x baseline$/);
    expect(lines[3]).toMatch(/^a\s+1\.23\s+1\.00$/);
    expect(lines[4]).toMatch(/^longer name\s+1235\s+2\.50$/);
    expect(lines[3]!.length).toBe(lines[4]!.length);
  });

  it('short mode sizes benches small, runBench returns rows with ratios, finish writes the JSON', async () => {
    const out: string[] = [];
    const suite = 'harness-selftest';
    const { ctx, finish } = createContext(suite, true, (s) => out.push(s));
    const b = ctx.bench('tiny', { iterations: 1000, time: 10_000 });
    expect([b.iterations, b.time]).toEqual([3, 100]);
    b.add('base', () => {
      let s = 0;
      for (let i = 0; i < 1000; i++) s += i;
      return void s;
    });
    b.add('double', () => {
      let s = 0;
      for (let i = 0; i < 2000; i++) s += i;
      return void s;
    });
    const rows = await ctx.runBench(b, { baseline: 'base' });
    expect(rows.map((r) => r.name)).toEqual(['base', 'double']);
    expect(rows[0]!['x baseline']).toBe(1);
    for (const r of rows) expect(r.samples).toBeGreaterThanOrEqual(3);
    ctx.table('fidelity', [{ case: 'x', meanDeltaE: 0.5 }]);
    ctx.log('hello');
    const result = finish();
    expect(result.ok).toBe(true);
    const file = path.join(RESULTS_DIR, `${suite}.json`);
    const json = JSON.parse(readFileSync(file, 'utf8'));
    rmSync(file);
    expect(json.tables.map((t: { title: string }) => t.title)).toEqual(['tiny', 'fidelity']);
    expect(json.log).toEqual(['hello']);
    expect(out.join('\n')).toContain('== fidelity');

    const failing = createContext(suite, true, () => {});
    const bad = failing.ctx.bench('bad');
    bad.add('throws', () => {
      throw new Error('boom');
    });
    await expect(failing.ctx.runBench(bad)).rejects.toThrow('boom');
    expect(failing.finish(new Error('boom')).ok).toBe(false);
    rmSync(file);
  });
});
