// The admin CLI as a child process against a temporary store: every admin command in the shape,
// with --json and text output, usage errors that change nothing. The CLI does not depend on the HTTP
// transport, so this runs once (test/cli); `inkprep serve` with keys the CLI made, on both transports, is
// test/http/admin-cli.test.ts.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../../adapter-http/dist/cli/main.js', import.meta.url));
const dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-admin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cli(args: string[], env: Record<string, string> = {}): { code: number; out: string; err: string; json: () => any } {
  const r = spawnSync(process.execPath, [MAIN, ...args], { env: { ...process.env, INKPREP_DATA_DIR: dir, ...env }, encoding: 'utf8' });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr, json: () => JSON.parse(r.stdout) };
}

describe('inkprep admin', () => {
  let accountId = '';
  let key = '';
  let keyId = '';

  it('account create prints the id (text) or the account (--json); lower plans too', () => {
    // a fresh data dir: refused (exit 1, nothing created) until --create is given
    const refusedFresh = cli(['admin', 'account', 'list', '--json']);
    expect(refusedFresh.code).toBe(1);
    expect(JSON.parse(refusedFresh.err)).toMatchObject({ code: 'not_found', store: { kind: 'sqlite', path: path.join(dir, 'inkprep.db') } });
    expect(existsSync(path.join(dir, 'inkprep.db'))).toBe(false);
    const text = cli(['admin', 'account', 'create', '--name', 'Acme Prints', '--plan', 'business', '--create']);
    expect(text.code, text.err).toBe(0);
    expect(text.err).toContain(`store: sqlite ${path.join(dir, 'inkprep.db')}`);
    accountId = text.out.trim();
    expect(accountId).toMatch(/^acc_[0-9a-f]{16}$/);
    const j = cli(['admin', 'account', 'create', '--name', 'Ops', '--plan', 'business', '--admin', '--json']);
    expect(j.json()).toMatchObject({ name: 'Ops', plan: 'business', status: 'active', admin: true, daily_limit: 999999, remove_bg_cap: null, upscale_cap: null });
    const pro = cli(['admin', 'account', 'create', '--name', 'Small', '--plan', 'pro', '--json']).json();
    const refused = cli(['admin', 'key', 'create', pro.id, '--json']);
    expect(refused.code).not.toBe(0);
    expect(JSON.parse(refused.err)).toMatchObject({ code: 'plan_inactive', plan: 'pro' });
    expect(cli(['admin', 'account', 'create', '--name', 'X', '--plan', 'gold']).code).toBe(2);
  });

  it('key create shows the key once; key list shows only prefixes', () => {
    const created = cli(['admin', 'key', 'create', accountId, '--json']).json();
    key = created.key;
    keyId = created.id;
    expect(key).toMatch(/^ink_live_[0-9A-Za-z]{40}$/);
    const plain = cli(['admin', 'key', 'create', accountId]);
    expect(plain.out.trim()).toMatch(/^ink_live_[0-9A-Za-z]{40}$/);
    const listed = cli(['admin', 'key', 'list', accountId, '--json']).json();
    expect(listed.store).toEqual({ kind: 'sqlite', path: path.join(dir, 'inkprep.db') });
    const list = listed.keys;
    expect(list).toHaveLength(2);
    expect(list[0]).toMatchObject({ id: keyId, prefix: key.slice(0, 13), active: true, revoked_at: null });
    expect(JSON.stringify(list)).not.toContain(key.slice(13));
  });

  it('account set changes plan, status, limits and caps (none = uncapped)', () => {
    const r = cli(['admin', 'account', 'set', accountId, '--daily-limit', '500', '--remove-bg-cap', '20', '--upscale-cap', '10', '--json']).json();
    expect(r).toMatchObject({ daily_limit: 500, remove_bg_cap: 20, upscale_cap: 10, status: 'active' });
    const r2 = cli(['admin', 'account', 'set', accountId, '--upscale-cap', 'none', '--status', 'lapsed', '--plan', 'business', '--json']).json();
    expect(r2).toMatchObject({ upscale_cap: null, status: 'lapsed', remove_bg_cap: 20 });
    expect(cli(['admin', 'account', 'set', accountId, '--status', 'active']).out).toContain('status=active');
    expect(cli(['admin', 'account', 'set', accountId, '--daily-limit', 'lots']).code).toBe(2);
    expect(cli(['admin', 'account', 'set', 'acc_0000000000000000', '--plan', 'pro']).code).not.toBe(0);
  });

  it('setting set/list; usage', () => {
    expect(cli(['admin', 'setting', 'set', 'upscale.budget', '2000000', '--json']).json()).toEqual({ 'upscale.budget': 2000000, store: { kind: 'sqlite', path: path.join(dir, 'inkprep.db') } });
    expect(cli(['admin', 'setting', 'list', '--json']).json().settings).toMatchObject({ 'upscale.budget': 2000000, 'upscale.budget4x': 750000 });
    expect(cli(['admin', 'setting', 'set', 'upscale.budget', '-5']).code).toBe(2);
    const u = cli(['admin', 'usage', accountId, '--json']).json();
    expect(u).toMatchObject({ account_id: accountId, window: 'rolling 24 hours', daily_limit_per_key: 500, per_key: [], fair_use: { remove_bg: { used: 0, cap: 20 }, upscale: { used: 0, cap: null } } });
  });


  it('key revoke by id; usage text', () => {
    const r = cli(['admin', 'key', 'revoke', keyId, '--json']);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ id: keyId, account_id: accountId });
    expect(cli(['admin', 'key', 'list', accountId, '--json']).json().keys[0].active).toBe(false);
    expect(cli(['admin', 'key', 'revoke', 'key_ffffffffffffffff']).code).not.toBe(0);
    expect(cli(['admin', 'usage', accountId]).out).toContain('remove-bg fair use: 0 of 20');
  });

  it('webhook-secret show makes the secret once and shows it again; rotate changes it, the old one signing for the grace', () => {
    const shown = cli(['admin', 'webhook-secret', 'show', accountId, '--json']);
    expect(shown.code, shown.err).toBe(0);
    const first = shown.json();
    expect(first).toMatchObject({ account_id: accountId, secret: expect.stringMatching(/^whsec_[0-9a-f]{64}$/), previous_secret: null, previous_signs_until: null });
    expect(cli(['admin', 'webhook-secret', 'show', accountId]).out.trim()).toBe(first.secret);
    const rotated = cli(['admin', 'webhook-secret', 'rotate', accountId, '--grace-hours', '2', '--json']).json();
    expect(rotated.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(rotated.secret).not.toBe(first.secret);
    expect(rotated.previous_secret).toBe(first.secret);
    const until = Date.parse(rotated.previous_signs_until);
    expect(until - Date.now()).toBeGreaterThan(1.9 * 3_600_000);
    expect(until - Date.now()).toBeLessThanOrEqual(2 * 3_600_000);
    expect(cli(['admin', 'webhook-secret', 'show', accountId, '--json']).json()).toMatchObject({ secret: rotated.secret, previous_secret: first.secret });
    // text mode: the secret on stdout, the old one's grace on the next line, the reminder on stderr
    const text = cli(['admin', 'webhook-secret', 'rotate', accountId]);
    expect(text.out.split('\n')[0]).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(text.out).toContain(`previous ${rotated.secret} also signs until`);
    expect(text.err).toContain('rotated');
    const now = cli(['admin', 'webhook-secret', 'rotate', accountId, '--grace-hours', '0', '--json']).json();
    expect(now).toMatchObject({ previous_secret: null, previous_signs_until: null });
    // bad values and unknown accounts change nothing
    expect(cli(['admin', 'webhook-secret', 'rotate', accountId, '--grace-hours', 'soon']).code).toBe(2);
    expect(cli(['admin', 'webhook-secret', 'rotate', accountId, '--grace-hours', '1000']).code).toBe(2);
    expect(cli(['admin', 'webhook-secret', 'show', 'acc_ffffffffffffffff']).code).toBe(1);
    expect(cli(['admin', 'webhook-secret', 'show', accountId, '--json']).json().secret).toBe(now.secret);
  });

  it('unknown flags exit 2 with a usage error line and change nothing', () => {
    const before = cli(['admin', 'account', 'show', accountId, '--json']).json();
    const typo = cli(['admin', 'account', 'set', accountId, '--daily-limitt', '5']);
    expect(typo.code).toBe(2);
    expect(JSON.parse(typo.err.trim().split('\n').pop()!)).toMatchObject({ code: 'usage', error: expect.stringContaining('--daily-limitt'), usage: expect.stringContaining('usage: inkprep admin') });
    expect(cli(['admin', 'account', 'show', accountId, '--json']).json()).toEqual(before);
    const keysBefore = cli(['admin', 'key', 'list', accountId, '--json']).json().keys.length;
    const bogus = cli(['admin', 'key', 'create', accountId, '--bogus', '1', '--json']);
    expect(bogus.code).toBe(2);
    expect(JSON.parse(bogus.err)).toMatchObject({ code: 'usage', error: expect.stringContaining('--bogus') });
    expect(cli(['admin', 'key', 'list', accountId, '--json']).json().keys).toHaveLength(keysBefore);
    // a flag another command takes is still unknown here
    expect(cli(['admin', 'account', 'list', '--plan', 'pro']).code).toBe(2);
  });

  it('names a PostgreSQL store with its password masked (text mode: on stderr before connecting)', () => {
    const r = cli(['admin', 'account', 'list'], { DATABASE_URL: 'postgres://ops:s3cretpw@127.0.0.1:1/inkprep' });
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('store: postgres postgres://ops:***@127.0.0.1:1/inkprep');
    expect(r.err).not.toContain('s3cretpw');
  });
});
