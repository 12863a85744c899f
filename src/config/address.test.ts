import { describe, expect, it } from 'vitest';
import { canonicalIPv6, isCanonicalIPv4 } from './address.js';

describe('isCanonicalIPv4', () => {
  it.each([
    ['127.0.0.1', true],
    ['0.0.0.0', true],
    ['255.255.255.255', true],
    ['10.0.0.01', false],
    ['256.0.0.1', false],
    ['1.2.3', false],
    ['1.2.3.4.5', false],
    ['localhost', false],
    ['::1', false],
    ['1.2.3.-4', false],
    ['', false],
  ])('%s -> %s', (text, expected) => {
    expect(isCanonicalIPv4(text)).toBe(expected);
  });
});

describe('canonicalIPv6 (RFC 5952)', () => {
  it.each([
    ['::1', '::1'],
    ['::', '::'],
    ['2001:DB8::1', '2001:db8::1'],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['2001:0:0:1:0:0:0:1', '2001:0:0:1::1'],
    ['fe80::', 'fe80::'],
    ['0:0:0:0:0:ffff:c000:0280', '::ffff:192.0.2.128'],
    ['::ffff:192.0.2.128', '::ffff:192.0.2.128'],
    ['64:ff9b::192.0.2.33', '64:ff9b::c000:221'],
    ['1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8'],
  ])('%s -> %s', (text, expected) => {
    expect(canonicalIPv6(text)).toBe(expected);
  });

  it.each([
    '1:2:3:4:5:6:7:8:9',
    '1::2::3',
    '12345::1',
    'fe80::1%eth0',
    'g::1',
    '1:2:3:4:5:6:7',
    ':1:2:3:4:5:6:7',
    '1:2:3:4:5:6:7:8::',
    '::1.2.3.256',
    '::ffff:1.2.3.04',
    '',
  ])('refuses %s', (text) => {
    expect(canonicalIPv6(text)).toBeNull();
  });
});
