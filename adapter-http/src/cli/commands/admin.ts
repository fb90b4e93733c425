// `inkprep admin ...`: operator commands against the same store the server uses (INKPREP_DATA_DIR,
// default ./data). Every command takes --json for machine-readable output. Shapes (scripts depend on them):
//   admin account create --name NAME --plan business|pro|free [--admin]      -> the account id
//   admin account set ID [--plan P] [--status active|lapsed|suspended] [--daily-limit N]
//                        [--remove-bg-cap N|none] [--upscale-cap N|none] [--remove-bg-monthly N|none] [--admin|--no-admin]
//   admin account show ID | admin account list
//   admin key create ACCOUNT_ID   -> the new key, shown once
//   admin key list ACCOUNT_ID | admin key revoke KEY_ID_OR_KEY
//   admin usage ACCOUNT_ID
//   admin setting list | admin setting set NAME VALUE|none
//   admin webhook-secret show ACCOUNT_ID | admin webhook-secret rotate ACCOUNT_ID [--grace-hours H]
// It works only on an existing store unless --create is given (so a command run from the wrong folder does
// not make an empty ./data), and always says which store: a `store` field in --json output (lists are
// wrapped as { store, accounts|keys|settings }), a `store: ...` line on stderr in text mode. Unknown flags are
// a usage error (exit 2), never ignored.
import { existsSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { createApiKey, revokeApiKey } from '../../auth/manage.js';
import { monthBounds } from '../../limits/meter.js';
import { SETTINGS, getSetting, isSettingName, parseSetting } from '../../settings.js';
import { dataDirFromEnv, storeConfigFromEnv } from '../../config.js';
import { openConfiguredStore } from '../../store/open.js';
import { ACCOUNT_STATUSES, PLANS, type Account, type AccountPatch, type AccountStatus, type Plan, type Store } from '../../store/types.js';
import { EXIT, UsageError, parseOrHelp, reportError, type Command } from '../command.js';
import { rejectUnknownFlags } from '../known-flags.js';
import { ServiceError } from '../../errors/registry.js';
import type { WebhookSecrets } from '../../store/webhooks.js';
import { newWebhookSecret } from '../../webhooks/signature.js';

const USAGE = `usage: inkprep admin <command> [--json] [--create]

  account create --name NAME --plan business|pro|free [--admin]
  account set ID [--plan P] [--status active|lapsed|suspended] [--daily-limit N]
                 [--remove-bg-cap N|none] [--upscale-cap N|none] [--remove-bg-monthly N|none] [--admin|--no-admin]
  account show ID
  account list
  key create ACCOUNT_ID          prints the new key once (only its hash is stored)
  key list ACCOUNT_ID
  key revoke KEY_ID_OR_KEY
  usage ACCOUNT_ID               usage in the rolling 24 h window (and remove-bg this month)
  setting list
  setting set NAME VALUE|none    e.g. upscale.budget 1500000 (read live by the server)
  webhook-secret show ACCOUNT_ID the secret signing the account's webhooks (made on first use)
  webhook-secret rotate ACCOUNT_ID [--grace-hours H]
                                 a new secret; the old one also signs for H hours (default 24, 0: stops now)

The store is the server's: DATABASE_URL (PostgreSQL) or INKPREP_DATA_DIR/inkprep.db (default ./data).
It must exist (inkprep serve creates it on first start) unless --create is given. Every command says
which store it used: \`store\` in --json output, a "store: ..." line on stderr otherwise.`;

/** Flags every admin command takes, and the extra flags of each command. */
const COMMON_FLAGS = ['json', 'help', 'create'] as const;
const COMMAND_FLAGS: Readonly<Record<string, readonly string[]>> = {
  'account create': ['name', 'plan', 'admin'],
  'account set': ['name', 'plan', 'status', 'daily_limit', 'remove_bg_cap', 'upscale_cap', 'remove_bg_monthly', 'admin', 'no_admin'],
  'webhook-secret rotate': ['grace_hours'],
};

/** How long a rotated-out webhook secret still signs by default: a day to deploy the new one to receivers. */
const DEFAULT_SECRET_GRACE_HOURS = 24;

/** Which store a command works on, as printed (a database URL with its password masked). */
export type StoreRef = { kind: 'sqlite'; path: string } | { kind: 'postgres'; database: string };

type Out = { json: boolean; store: StoreRef };

function print(o: Out, value: Record<string, unknown>, text: string): void {
  process.stdout.write((o.json ? JSON.stringify({ ...value, store: o.store }, null, 2) : text) + '\n');
}

/** `postgres://user:secret@host/db` -> `postgres://user:***@host/db` (unparseable URLs are hidden whole). */
export function maskUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable DATABASE_URL)';
  }
}

function storeText(s: StoreRef): string {
  return s.kind === 'sqlite' ? `sqlite ${s.path}` : `postgres ${s.database}`;
}

/** Reject flags the command does not take (exit 2 with the usage, and the nearest flag it takes), instead of silently ignoring them. */
function checkFlags(pos: string[], flags: Record<string, string | true>): void {
  const allowed = [...COMMON_FLAGS, ...(COMMAND_FLAGS[`${pos[0]} ${pos[1]}`] ?? [])];
  rejectUnknownFlags(flags, allowed, `admin ${pos.slice(0, 2).join(' ')}`.trim(), USAGE);
}

/** Whether the configured store already exists (SQLite file, or the accounts table in PostgreSQL). */
async function storeExists(ref: StoreRef, url: string | undefined): Promise<boolean> {
  if (ref.kind === 'sqlite') return existsSync(ref.path);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const r = await client.query<{ found: boolean }>(`SELECT to_regclass('accounts') IS NOT NULL AS found`);
    return r.rows[0]?.found === true;
  } finally {
    await client.end();
  }
}

function accountJson(a: Account): Record<string, unknown> {
  return {
    id: a.id, name: a.name, plan: a.plan, status: a.status, admin: a.admin, daily_limit: a.dailyLimit,
    remove_bg_cap: a.removeBgCap, upscale_cap: a.upscaleCap, remove_bg_monthly_allowance: a.removeBgMonthlyAllowance,
    created_at: new Date(a.createdAt).toISOString(),
  };
}

function accountText(a: Account): string {
  const cap = (v: number | null) => (v === null ? 'none' : String(v));
  return `${a.id}  ${a.name}  plan=${a.plan} status=${a.status}${a.admin ? ' admin' : ''} daily_limit=${a.dailyLimit} remove_bg_cap=${cap(a.removeBgCap)} upscale_cap=${cap(a.upscaleCap)} remove_bg_monthly=${cap(a.removeBgMonthlyAllowance)}`;
}

function secretsJson(s: WebhookSecrets, now: number): Record<string, unknown> {
  const grace = s.previous !== null && s.previousUntil !== null && now < s.previousUntil;
  return {
    account_id: s.accountId, secret: s.current, created_at: new Date(s.createdAt).toISOString(),
    previous_secret: grace ? s.previous : null, previous_signs_until: grace ? new Date(s.previousUntil!).toISOString() : null,
  };
}

function secretsText(s: WebhookSecrets, now: number): string {
  const j = secretsJson(s, now);
  return j.previous_secret ? `${s.current}\nprevious ${String(j.previous_secret)} also signs until ${String(j.previous_signs_until)}` : s.current;
}

function str(flags: Record<string, string | true>, name: string): string | undefined {
  const v = flags[name];
  if (v === true) throw new UsageError(`--${name.replace(/_/g, '-')} needs a value`);
  return v;
}

function intFlag(flags: Record<string, string | true>, name: string, nullable: boolean): number | null | undefined {
  const v = str(flags, name);
  if (v === undefined) return undefined;
  if (nullable && (v === 'none' || v === 'null')) return null;
  if (!/^\d+$/.test(v)) throw new UsageError(`--${name.replace(/_/g, '-')} expects a whole number${nullable ? ' or none' : ''}, got ${JSON.stringify(v)}`);
  return Number(v);
}

function planFlag(v: string | undefined): Plan | undefined {
  if (v === undefined) return undefined;
  if (!(PLANS as readonly string[]).includes(v)) throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`);
  return v as Plan;
}

async function requireAccount(store: Store, id: string | undefined): Promise<Account> {
  if (!id) throw new UsageError('an ACCOUNT_ID is required\n\n' + USAGE);
  const a = await store.getAccount(id);
  if (!a) throw new ServiceError('not_found', `No account ${id}`);
  return a;
}

async function runAdmin(store: Store, pos: string[], flags: Record<string, string | true>, o: Out): Promise<number> {
  const now = Date.now();
  const [group, action, arg] = pos;
  if (group === 'account' && action === 'create') {
    const name = str(flags, 'name');
    const plan = planFlag(str(flags, 'plan'));
    if (!name || !plan) throw new UsageError('account create needs --name NAME and --plan business|pro|free');
    const a = await store.createAccount({ name, plan, admin: flags.admin === true || flags.admin === 'true', now });
    print(o, accountJson(a), a.id);
    return EXIT.ok;
  }
  if (group === 'account' && action === 'set') {
    await requireAccount(store, arg);
    const patch: AccountPatch = {};
    const plan = planFlag(str(flags, 'plan'));
    if (plan) patch.plan = plan;
    const status = str(flags, 'status');
    if (status !== undefined) {
      if (!(ACCOUNT_STATUSES as readonly string[]).includes(status)) throw new UsageError(`--status must be one of ${ACCOUNT_STATUSES.join(', ')}`);
      patch.status = status as AccountStatus;
    }
    const daily = intFlag(flags, 'daily_limit', false);
    if (daily !== undefined && daily !== null) patch.dailyLimit = daily;
    const rb = intFlag(flags, 'remove_bg_cap', true);
    if (rb !== undefined) patch.removeBgCap = rb;
    const up = intFlag(flags, 'upscale_cap', true);
    if (up !== undefined) patch.upscaleCap = up;
    const monthly = intFlag(flags, 'remove_bg_monthly', true);
    if (monthly !== undefined) patch.removeBgMonthlyAllowance = monthly;
    if (flags.admin !== undefined) patch.admin = true;
    if (flags.no_admin !== undefined) patch.admin = false;
    const name = str(flags, 'name');
    if (name) patch.name = name;
    const a = await store.updateAccount(arg!, patch);
    print(o, accountJson(a), accountText(a));
    return EXIT.ok;
  }
  if (group === 'account' && action === 'show') {
    const a = await requireAccount(store, arg);
    print(o, accountJson(a), accountText(a));
    return EXIT.ok;
  }
  if (group === 'account' && action === 'list') {
    const all = await store.listAccounts();
    print(o, { accounts: all.map(accountJson) }, all.map(accountText).join('\n') || '(no accounts)');
    return EXIT.ok;
  }
  if (group === 'key' && action === 'create') {
    const a = await requireAccount(store, arg);
    const { key, secret } = await createApiKey(store, a.id, now);
    print(o, { id: key.id, account_id: a.id, key: secret, created_at: new Date(key.createdAt).toISOString() }, secret);
    if (!o.json) process.stderr.write(`key ${key.id} for ${a.id}: shown once, store it now\n`);
    return EXIT.ok;
  }
  if (group === 'key' && action === 'list') {
    const a = await requireAccount(store, arg);
    const keys = await store.listKeys(a.id);
    const rows = keys.map((k) => ({
      id: k.id, prefix: k.prefix, created_at: new Date(k.createdAt).toISOString(),
      revoked_at: k.revokedAt === null ? null : new Date(k.revokedAt).toISOString(), active: k.revokedAt === null,
    }));
    print(o, { keys: rows }, rows.map((r) => `${r.id}  ${r.prefix}...  created ${r.created_at}${r.revoked_at ? `  revoked ${r.revoked_at}` : ''}`).join('\n') || '(no keys)');
    return EXIT.ok;
  }
  if (group === 'key' && action === 'revoke') {
    if (!arg) throw new UsageError('key revoke needs KEY_ID_OR_KEY');
    const k = await revokeApiKey(store, arg, now);
    if (!k) throw new ServiceError('not_found', 'No such key');
    print(o, { id: k.id, account_id: k.accountId, revoked_at: new Date(k.revokedAt ?? now).toISOString() }, `revoked ${k.id}`);
    return EXIT.ok;
  }
  if (group === 'usage') {
    const a = await requireAccount(store, action);
    const u = await store.usage(a.id, now, monthBounds(now).monthStart);
    const value = {
      account_id: a.id, window: 'rolling 24 hours', window_start: new Date(u.windowStart).toISOString(),
      daily_limit_per_key: a.dailyLimit, per_key: u.perKey.map((k) => ({ key_id: k.keyId, used: k.used })),
      per_endpoint: u.perEndpoint,
      fair_use: {
        remove_bg: { used: u.fairUse.remove_bg, cap: a.admin ? null : a.removeBgCap },
        upscale: { used: u.fairUse.upscale, cap: a.admin ? null : a.upscaleCap },
      },
      remove_bg_this_month: { used: u.removeBgThisMonth, allowance: a.removeBgMonthlyAllowance },
    };
    const lines = [
      `account ${a.id} (rolling 24 h since ${value.window_start})`,
      ...u.perKey.map((k) => `  key ${k.keyId}: ${k.used} of ${a.dailyLimit}`),
      ...Object.entries(u.perEndpoint).map(([e, n]) => `  ${e}: ${n}`),
      `  remove-bg fair use: ${u.fairUse.remove_bg} of ${value.fair_use.remove_bg.cap ?? 'uncapped'}`,
      `  upscale fair use: ${u.fairUse.upscale} of ${value.fair_use.upscale.cap ?? 'uncapped'}`,
      `  remove-bg this month: ${u.removeBgThisMonth} of ${a.removeBgMonthlyAllowance ?? 'no allowance limit'}`,
    ];
    print(o, value, lines.join('\n'));
    return EXIT.ok;
  }
  if (group === 'setting' && action === 'list') {
    const out: Record<string, number> = {};
    for (const n of Object.keys(SETTINGS)) if (isSettingName(n)) out[n] = await getSetting(store, n);
    print(o, { settings: out }, Object.entries(out).map(([k, v]) => `${k} = ${v}`).join('\n'));
    return EXIT.ok;
  }
  if (group === 'setting' && action === 'set') {
    const value = pos[3];
    if (!arg || value === undefined) throw new UsageError('setting set needs NAME VALUE');
    if (!isSettingName(arg)) throw new UsageError(`unknown setting ${arg}; known: ${Object.keys(SETTINGS).join(', ')}`);
    if (value === 'none') await store.setSetting(arg, null);
    else await store.setSetting(arg, parseSetting(arg, value));
    const v = await getSetting(store, arg);
    print(o, { [arg]: v }, `${arg} = ${v}`);
    return EXIT.ok;
  }
  if (group === 'webhook-secret' && action === 'show') {
    const a = await requireAccount(store, arg);
    const s = await store.webhooks.secrets(a.id, now, newWebhookSecret);
    print(o, secretsJson(s, now), secretsText(s, now));
    return EXIT.ok;
  }
  if (group === 'webhook-secret' && action === 'rotate') {
    const a = await requireAccount(store, arg);
    const raw = str(flags, 'grace_hours');
    const hours = raw === undefined ? DEFAULT_SECRET_GRACE_HOURS : Number(raw);
    if (!/^\d+(\.\d+)?$/.test(raw ?? '0') || !(hours <= 720)) throw new UsageError(`--grace-hours expects a number of hours from 0 to 720, got ${JSON.stringify(raw)}`);
    const s = await store.webhooks.rotateSecret(a.id, newWebhookSecret(), now, Math.round(hours * 3_600_000));
    print(o, secretsJson(s, now), secretsText(s, now));
    if (!o.json) process.stderr.write(`webhook secret of ${a.id} rotated; give receivers the new one${hours > 0 ? ` within ${hours} h` : ' now'}\n`);
    return EXIT.ok;
  }
  throw new UsageError(USAGE);
}

export const adminCommand: Command = {
  name: 'admin',
  summary: 'manage accounts, API keys, usage and settings in the server store (--json for scripts)',
  usage: USAGE,
  async run(argv) {
    const parsed = parseOrHelp(argv, USAGE, ['create', 'no_admin']);
    if (!parsed) return EXIT.ok;
    const { positionals, flags } = parsed;
    const json = flags.json === true;
    let store: Store | null = null;
    try {
      if (positionals.length === 0) throw new UsageError('admin needs a command', USAGE);
      checkFlags(positionals, flags);
      // Only the store's settings: a bad server-only variable (PORT, ...) must not stop an operator command.
      const dataDir = dataDirFromEnv();
      const storeConfig = storeConfigFromEnv();
      const url = storeConfig.databaseUrl ?? undefined;
      const ref: StoreRef = url ? { kind: 'postgres', database: maskUrl(url) } : { kind: 'sqlite', path: path.join(dataDir, 'inkprep.db') };
      if (!json) process.stderr.write(`store: ${storeText(ref)}\n`);
      if (flags.create !== true && !(await storeExists(ref, url))) {
        throw new ServiceError('not_found', `No inkprep store at ${storeText(ref)}; check INKPREP_DATA_DIR / DATABASE_URL, or pass --create to create it`, { store: ref });
      }
      store = (await openConfiguredStore({ dataDir, config: storeConfig, cacheKeys: false })).store;
      return await runAdmin(store, positionals, flags, { json, store: ref });
    } catch (err) {
      return reportError(err);
    } finally {
      await store?.close();
    }
  },
};
