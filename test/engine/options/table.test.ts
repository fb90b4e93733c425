// The option tables (engine/src/options/table.ts): one declaration per field gives the resolver, the names
// (wire snake_case for text forms, camelCase for typed callers, snake_case accepted in transition) and the
// resolved brand that lets engine.run take a value resolved at the boundary without resolving it again.
import { describe, expect, it } from 'vitest';
import { createEngine, InkprepError, isResolved, resolveOptions, textOptions } from '@inkprep/engine';
import { OPS, defineOptions, optionFields } from '@inkprep/engine/internals';

const { bool, number, oneOf } = optionFields;
const table = defineOptions([
  number('print_width_inches', 'printWidthInches', { min: 0.1, max: 500, default: 12 }, 'width'),
  bool('fix_trim', 'fixTrim', false, 'trim'),
  oneOf('view', 'view', ['front', 'back'] as const, undefined, 'side', { defaultVaries: true }),
  number('offset_x_in', 'offsetXIn', { min: -20, max: 20 }, 'offset', { defaultVaries: true, usualDefault: 0 }),
] as const);

function fieldOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (err) {
    if (err instanceof InkprepError && err.code === 'invalid_option') return err.details.field as string;
    throw err;
  }
  return undefined;
}

describe('option tables', () => {
  it('resolves by library name, frozen; text forms by wire name only', () => {
    const r = table.resolve({ printWidthInches: 10 });
    expect(r).toEqual({ printWidthInches: 10, fixTrim: false, view: undefined, offsetXIn: undefined });
    expect(Object.isFrozen(r)).toBe(true);
    expect(table.resolve(textOptions({ print_width_inches: '11.5', fix_trim: 'true', view: 'back' }))).toMatchObject({ printWidthInches: 11.5, fixTrim: true, view: 'back' });
    expect(table.resolve(textOptions({ printWidthInches: '11' })).printWidthInches).toBe(12);
  });

  it('accepts the snake_case names from typed callers, refuses one field under both names', () => {
    expect(table.resolve({ print_width_inches: 10, fix_trim: true })).toMatchObject({ printWidthInches: 10, fixTrim: true });
    expect(fieldOf(() => table.resolve({ printWidthInches: 10, print_width_inches: 10 } as never))).toBe('print_width_inches');
    // null and undefined are "not given" under either name
    expect(table.resolve({ printWidthInches: undefined, print_width_inches: 9 } as never).printWidthInches).toBe(9);
  });

  it('keeps the shared rules and messages: blank values, decimal text, ranges name the wire field', () => {
    expect(() => table.resolve(textOptions({ print_width_inches: '' }))).toThrow(/print_width_inches/);
    expect(() => table.resolve(textOptions({ print_width_inches: ' 3' }))).toThrow(/leading or trailing spaces/);
    expect(() => table.resolve({ printWidthInches: 0 })).toThrow('Expected a number from 0.1 to 500 for print_width_inches');
    expect(fieldOf(() => table.resolve({ fixTrim: 'true' } as never))).toBe('fix_trim');
  });

  it('describes each field for the document: kind, range, default, and a usual default that the reader does not apply', () => {
    const offset = table.fields[3];
    expect(offset.spec).toEqual({ field: 'offset_x_in', kind: 'number', min: -20, max: 20, default: 0, defaultVaries: true });
    expect(table.resolve({}).offsetXIn).toBeUndefined();
    expect(table.fields.map((f) => f.text)).toEqual(['0.1-500', 'true|false', 'front|back', '-20-20']);
  });

  it('every op declares its options in a table (wire names unique, library names camelCase)', () => {
    for (const [op, def] of Object.entries(OPS)) {
      const fields = (def as { fields?: readonly { wire: string; lib: string }[] }).fields;
      expect(fields, op).toBeDefined();
      expect(new Set(fields!.map((f) => f.wire)).size, op).toBe(fields!.length);
      for (const f of fields!) expect(f.lib, `${op}.${f.wire}`).toMatch(/^[a-z][a-zA-Z0-9]*$/);
    }
  });
});

describe('resolved once', () => {
  it('resolveOptions brands the value; engine.run takes it without resolving again', async () => {
    const resolved = resolveOptions('scan', textOptions({ print_width_inches: '10' }));
    expect(isResolved('scan', resolved)).toBe(true);
    expect(isResolved('fix', resolved)).toBe(false);
    expect(isResolved('scan', { ...resolved })).toBe(false);
    const scan = OPS.scan as { resolve: (raw: unknown) => unknown };
    const original = scan.resolve;
    let calls = 0;
    scan.resolve = (raw) => {
      calls++;
      return original(raw);
    };
    const engine = createEngine({ threads: 0 });
    try {
      const raster = { width: 4, height: 4, data: new Uint8ClampedArray(64).fill(255) };
      const a = await engine.scan(raster, resolved);
      expect(calls).toBe(0);
      const b = await engine.scan(raster, { printWidthInches: 10 });
      expect(calls).toBe(1);
      expect(a.printWidthInches).toBe(10);
      expect(b).toEqual(a);
    } finally {
      scan.resolve = original;
      await engine.close();
    }
  });
});
