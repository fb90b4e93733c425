// Webhooks' SSRF policy and backoff (issue #33) through the package's exports: which addresses count as
// public (IPv4 ranges, IPv6 ranges, IPv4 carried inside IPv6), what a `callback_url` may be at submission
// (https; http and private hosts only when the operator lists them), the delivery-time check on the resolved
// addresses (one private answer refuses the host), and the retry delays (exponential, jittered, bounded).
// Deliveries themselves: delivery.test.ts (SQLite) and test/scale/webhooks-pg.test.ts (PostgreSQL).
import { describe, expect, it } from 'vitest';
import { checkCallbackUrl, embeddedIPv4, isPublicAddress, nextAttemptAt, resolveTarget, retryDelayMs, ServiceError, statusOf, webhookConfigFromEnv } from '@inkprep/http';

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1', '127.255.0.9', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '100.64.0.1', '100.127.255.254',
    '169.254.169.254', '0.0.0.0', '0.1.2.3', '224.0.0.1', '239.255.255.250', '255.255.255.255', '240.0.0.1', '192.0.2.5', '198.18.0.1', '198.51.100.7', '203.0.113.9',
    '::', '::1', 'fe80::1', 'fe80::1%eth0', 'fc00::1', 'fd12:3456::1', 'ff02::1', 'fec0::1', '2001:db8::1',
    '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:192.168.0.1', '::ffff:169.254.169.254', '::127.0.0.1', '64:ff9b::10.0.0.1', '64:ff9b::a00:1',
    '2002:c0a8:0101::1', '2001:0:4136:e378:8000:63bf:80ff:fffe',
  ])('%s is not public', (ip) => expect(isPublicAddress(ip)).toBe(false));

  it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450:4001::200e', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:0808:0808::1'])(
    '%s is public', (ip) => expect(isPublicAddress(ip)).toBe(true));

  it('reads the IPv4 address inside IPv6 forms', () => {
    expect(embeddedIPv4('::ffff:7f00:1')).toBe('127.0.0.1');
    expect(embeddedIPv4('64:ff9b::192.168.0.1')).toBe('192.168.0.1');
    expect(embeddedIPv4('2002:0a00:0001::')).toBe('10.0.0.1');
    expect(embeddedIPv4('2001:0:4136:e378:8000:63bf:80ff:fffe')).toBe('127.0.0.1');
    expect(embeddedIPv4('2606:4700::1111')).toBeNull();
    expect(isPublicAddress('not an address')).toBe(false);
  });
});

/** The error a refused callback_url gives: 400 `invalid_callback_url` naming the field. */
function refusal(f: () => unknown): ServiceError {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).code).toBe('invalid_callback_url');
    expect(statusOf('invalid_callback_url')).toBe(400);
    expect((err as ServiceError).details).toMatchObject({ field: 'callback_url' });
    return err as ServiceError;
  }
  throw new Error('not refused');
}

describe('checkCallbackUrl (at submission)', () => {
  it('accepts https to a public host or address', () => {
    expect(checkCallbackUrl('https://hooks.example.com/inkprep?x=1', []).hostname).toBe('hooks.example.com');
    expect(checkCallbackUrl('https://93.184.216.34:8443/h', []).port).toBe('8443');
    expect(checkCallbackUrl('https://[2606:4700:4700::1111]/h', []).hostname).toBe('[2606:4700:4700::1111]');
  });

  it('refuses http, other schemes, credentials, non-URLs and over-long URLs', () => {
    expect(refusal(() => checkCallbackUrl('http://hooks.example.com/h', [])).message).toContain('must be https');
    refusal(() => checkCallbackUrl('ftp://hooks.example.com/h', []));
    refusal(() => checkCallbackUrl('file:///etc/passwd', []));
    refusal(() => checkCallbackUrl('https://user:pw@hooks.example.com/h', []));
    refusal(() => checkCallbackUrl('/relative/path', []));
    refusal(() => checkCallbackUrl('https://hooks.example.com/' + 'a'.repeat(2100), []));
  });

  it('refuses loopback, private and reserved literals and localhost unless the operator lists the host', () => {
    for (const u of ['http://127.0.0.1:9000/h', 'https://127.0.0.1/h', 'https://10.0.0.8/h', 'https://169.254.169.254/latest/meta-data', 'https://[::1]/h',
      'https://[::ffff:127.0.0.1]/h', 'https://[fd00::1]/h', 'https://0.0.0.0/h', 'https://2130706433/h', 'https://0x7f.1/h', 'https://localhost/h', 'https://api.localhost/h']) {
      refusal(() => checkCallbackUrl(u, []));
    }
    expect(checkCallbackUrl('http://127.0.0.1:9000/h', ['127.0.0.1']).port).toBe('9000');
    expect(checkCallbackUrl('http://hooks.internal/h', ['hooks.internal']).hostname).toBe('hooks.internal');
    expect(checkCallbackUrl('https://[::1]/h', ['::1']).hostname).toBe('[::1]');
    // listing one host allows that one only
    refusal(() => checkCallbackUrl('http://127.0.0.2/h', ['127.0.0.1']));
  });
});

describe('resolveTarget (at delivery, on the resolved addresses)', () => {
  const dns = (map: Record<string, string[]>) => async (h: string) => (map[h] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  it('connects to the checked address of a public host', async () => {
    const t = await resolveTarget('https://hooks.example.com/h', [], dns({ 'hooks.example.com': ['93.184.216.34', '2606:2800:220:1::1'] }));
    expect(t).toMatchObject({ address: '93.184.216.34', family: 4 });
  });

  it('refuses a host with any private answer (a rebinding name may offer both), unless listed', async () => {
    const resolver = dns({ 'evil.example.com': ['93.184.216.34', '127.0.0.1'], 'meta.example.com': ['::ffff:169.254.169.254'], 'hooks.internal': ['10.0.0.5'] });
    await expect(resolveTarget('https://evil.example.com/h', [], resolver)).rejects.toMatchObject({ code: 'invalid_callback_url', message: expect.stringContaining('127.0.0.1') });
    await expect(resolveTarget('https://meta.example.com/h', [], resolver)).rejects.toMatchObject({ code: 'invalid_callback_url' });
    await expect(resolveTarget('http://hooks.internal/h', ['hooks.internal'], resolver)).resolves.toMatchObject({ address: '10.0.0.5' });
    // the allow list is read again at delivery: a host dropped from it since submission is refused
    await expect(resolveTarget('http://hooks.internal/h', [], resolver)).rejects.toMatchObject({ code: 'invalid_callback_url' });
  });

  it('a name without addresses is an ordinary (retried) error', async () => {
    await expect(resolveTarget('https://gone.example.com/h', [], dns({}))).rejects.not.toBeInstanceOf(ServiceError);
  });
});

describe('retry delays', () => {
  const p = { firstDelayMs: 30_000, maxDelayMs: 3_600_000 };
  it('double from the first delay, jittered within the upper half, capped', () => {
    expect(retryDelayMs(1, p, () => 0)).toBe(15_000);
    expect(retryDelayMs(1, p, () => 0.999999)).toBe(30_000); // rounded
    expect(retryDelayMs(2, p, () => 0)).toBe(30_000);
    expect(retryDelayMs(5, p, () => 0.5)).toBe(360_000);
    expect(retryDelayMs(30, p, () => 0)).toBe(1_800_000);
    expect(retryDelayMs(30, p, () => 0.999999)).toBeGreaterThan(3_599_990);
    expect(retryDelayMs(30, p, () => 0.999999)).toBeLessThanOrEqual(3_600_000);
  });
  it('stop at the window: the default 24 h allows about 30 attempts', () => {
    const config = webhookConfigFromEnv({});
    expect(config.retryForMs).toBe(24 * 3_600_000);
    let now = 0;
    let n = 1;
    for (let at = nextAttemptAt(1, 0, config.retryForMs, config, () => 1); at !== null; at = nextAttemptAt(n, now, config.retryForMs, config, () => 1)) {
      now = at;
      n++;
    }
    expect(n).toBeGreaterThan(25);
    expect(n).toBeLessThan(35);
    expect(now).toBeLessThanOrEqual(config.retryForMs);
  });
  it('configuration: allow list lower-cased, brackets dropped, URLs refused', () => {
    expect(webhookConfigFromEnv({ INKPREP_WEBHOOK_ALLOW_HOSTS: 'Hooks.Internal, 127.0.0.1,[::1]' }).allowHosts).toEqual(['hooks.internal', '127.0.0.1', '::1']);
    expect(() => webhookConfigFromEnv({ INKPREP_WEBHOOK_ALLOW_HOSTS: 'http://hooks.internal' })).toThrow(/INKPREP_WEBHOOK_ALLOW_HOSTS/);
    expect(() => webhookConfigFromEnv({ INKPREP_WEBHOOK_RETRY_HOURS: '500' })).toThrow(/INKPREP_WEBHOOK_RETRY_HOURS/);
    expect(webhookConfigFromEnv({ INKPREP_WEBHOOK_RETRY_HOURS: '2', INKPREP_WEBHOOK_TIMEOUT_MS: '3000' })).toMatchObject({ retryForMs: 7_200_000, timeoutMs: 3000 });
  });
});
