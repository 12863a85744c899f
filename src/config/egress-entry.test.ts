import { describe, expect, it } from 'vitest';
import { closureCovers, closureReaches, egressKey, parseEgressEntry } from './egress-entry.js';

describe('parseEgressEntry', () => {
  it.each([
    ['api.anthropic.com', false, 'api.anthropic.com', 443],
    ['API.Example.COM:8443', false, 'api.example.com', 8443],
    ['10.0.0.1', false, '10.0.0.1', 443],
    ['10.0.0.1:22', false, '10.0.0.1', 22],
    ['host.docker.internal:60022', false, 'host.docker.internal', 60022],
    ['my_host', false, 'my_host', 443],
    ['[2001:DB8::0001]:443', false, '[2001:db8::1]', 443],
    ['[::1]', false, '[::1]', 443],
    ['!example.com', true, 'example.com', null],
    ['!example.com:80', true, 'example.com', 80],
    ['![::1]:8080', true, '[::1]', 8080],
    ['x:65535', false, 'x', 65535],
    ['x:1', false, 'x', 1],
  ])('%s', (raw, closure, host, port) => {
    expect(parseEgressEntry(raw)).toEqual({ ok: true, closure, entry: { host, port } });
  });

  it.each([
    ['', 'empty host'],
    ['!', 'empty host'],
    ['example.com:0', 'must be 1-65535'],
    ['example.com:65536', 'must be 1-65535'],
    ['example.com:', 'must be 1-65535'],
    ['example.com:http', 'must be 1-65535'],
    ['-bad.example', 'not a valid host'],
    ['bad.example-', 'not a valid host'],
    ['exa mple.com', 'not a valid host'],
    ['https://example.com', 'a URL was given'],
    ['010.0.0.1', 'not a valid host'],
    ['300.0.0.1', 'not a valid host'],
    ['[::1', 'malformed bracketed'],
    ['[zz::1]:443', 'not an IPv6 address'],
    ['[::1]:0', 'must be 1-65535'],
    ['2001:db8::1', 'bare IPv6'],
  ])('refuses %j', (raw, why) => {
    const parsed = parseEgressEntry(raw);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toContain(why);
  });

  it.each([
    [
      'http://github.com/x',
      'write "github.com:80" (the port that URL reaches; "github.com" alone is port 443)',
    ],
    ['https://github.com/x', 'write "github.com"'],
    ['HTTPS://GitHub.com', 'write "github.com"'],
    [
      'https://registry.example.com:8443/v2/',
      'write "registry.example.com:8443" (the port that URL reaches; "registry.example.com" alone is port 443)',
    ],
    ['github.com/org/repo', 'write "github.com"'],
    ['!https://ads.example.com/x', 'write "!ads.example.com"'],
    ['https://[2001:db8::1]/', 'write "[2001:db8::1]"'],
    [
      'ssh://git@github.com:22/x',
      'write "github.com:22" (the port that URL reaches; "github.com" alone is port 443)',
    ],
  ])('says %j is a URL and suggests its host', (raw, fix) => {
    expect(parseEgressEntry(raw)).toEqual({
      ok: false,
      message: `egress ${JSON.stringify(raw)}: a URL was given; egress takes a host and port, not a URL`,
      fix,
    });
  });

  it('hints the bracketed, canonical spelling for a bare IPv6 address', () => {
    const parsed = parseEgressEntry('2001:DB8:0:0::1');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.fix).toBe('write it in brackets: [2001:db8::1]:443');
  });
});

describe('egress identity', () => {
  it('keys entries by host and port, a portless closure by host:*', () => {
    expect(egressKey({ host: 'a.com', port: 443 })).toBe('a.com:443');
    expect(egressKey({ host: 'a.com', port: null })).toBe('a.com:*');
  });

  it.each([
    [{ host: 'a.com', port: null }, { host: 'a.com', port: 80 }, true],
    [{ host: 'a.com', port: 80 }, { host: 'a.com', port: 80 }, true],
    [{ host: 'a.com', port: 80 }, { host: 'a.com', port: 443 }, false],
    [{ host: 'a.com', port: null }, { host: 'b.com', port: 443 }, false],
  ])('closure %j covers %j: %s', (closure, entry, expected) => {
    expect(closureCovers(closure, entry)).toBe(expected);
  });

  it.each([
    [{ host: 'github.com', port: null }, { host: 'api.github.com', port: 443 }, true],
    [{ host: 'github.com', port: 443 }, { host: 'api.github.com', port: 443 }, true],
    [{ host: 'github.com', port: 22 }, { host: 'api.github.com', port: 443 }, false],
    [{ host: 'api.github.com', port: null }, { host: 'github.com', port: 443 }, false],
    [{ host: 'hub.com', port: null }, { host: 'github.com', port: 443 }, false],
    [{ host: '10.0.0.1', port: null }, { host: 'x.10.0.0.1', port: 443 }, false],
  ])('closure %j reaches %j at the wall: %s', (closure, entry, expected) => {
    expect(closureReaches(closure, entry)).toBe(expected);
  });
});
