// The client address rule of the request log (README "Logs, metrics, shutdown"): one spelling per address
// whatever the transport reports, INKPREP_TRUSTED_PROXY parsed strictly, and X-Forwarded-For believed only
// from trusted proxies, right to left. (The same rule over real sockets: logs.test.ts.)
import { describe, expect, it } from 'vitest';
import { clientAddress, normalizeAddress, parseTrustedProxies } from '../../adapter-http/src/http/client-address.js';

describe('client address', () => {
  it('normalises what the transports report', () => {
    expect(normalizeAddress('0000:0000:0000:0000:0000:ffff:7f00:0001')).toBe('127.0.0.1'); // uWS, dual-stack socket
    expect(normalizeAddress('::ffff:10.0.0.1')).toBe('10.0.0.1'); // node:http, dual-stack socket
    expect(normalizeAddress('0000:0000:0000:0000:0000:0000:0000:0001')).toBe('::1');
    expect(normalizeAddress('2001:0db8:0000:0000:0000:0000:0000:0001')).toBe('2001:db8::1');
    expect(normalizeAddress('2001:db8:0:1:0:0:0:1')).toBe('2001:db8:0:1::1');
    expect(normalizeAddress('192.0.2.1')).toBe('192.0.2.1');
  });

  it('parses INKPREP_TRUSTED_PROXY strictly', () => {
    expect(parseTrustedProxies(undefined)).toBeNull();
    expect(parseTrustedProxies(' ')).toBeNull();
    for (const bad of ['10.0.0.0/33', 'proxy.local', '10.0.0.1/8/1', 'fd00::/129']) expect(() => parseTrustedProxies(bad), bad).toThrow(/INKPREP_TRUSTED_PROXY/);
  });

  it('believes X-Forwarded-For only from a trusted proxy, taking the right-most untrusted hop', () => {
    const proxies = parseTrustedProxies('10.0.0.0/8, fd00::/8 127.0.0.1');
    expect(clientAddress('10.1.1.1', '198.51.100.1, 203.0.113.7', proxies)).toBe('203.0.113.7');
    expect(clientAddress('::ffff:10.1.1.1', '203.0.113.7, 10.2.2.2, fd00::5', proxies)).toBe('203.0.113.7');
    expect(clientAddress('fd00::1', '2001:db8::9', proxies)).toBe('2001:db8::9');
    expect(clientAddress('10.1.1.1', '10.2.2.2, 10.3.3.3', proxies)).toBe('10.2.2.2'); // all trusted: the left-most
    expect(clientAddress('10.1.1.1', 'evil, 10.3.3.3', proxies)).toBe('10.3.3.3'); // garbage is never the client
    expect(clientAddress('10.1.1.1', '', proxies)).toBe('10.1.1.1');
    expect(clientAddress('192.0.2.50', '203.0.113.7', proxies)).toBe('192.0.2.50'); // not a proxy of ours
    expect(clientAddress('10.1.1.1', '203.0.113.7', null)).toBe('10.1.1.1'); // none configured
  });
});
