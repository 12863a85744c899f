import { describe, expect, it } from 'vitest';

import { lockedIntegrity, RELEASE_TARGETS, renderSums } from './targets.js';

describe('RELEASE_TARGETS', () => {
  it('covers linux and darwin on x64 and arm64 with bun’s and npm’s spellings', () => {
    expect(RELEASE_TARGETS.map((t) => [t.artifact, t.bunTarget, t.runtimePackage])).toEqual([
      ['byre-linux-x64', 'bun-linux-x64', '@oven/bun-linux-x64'],
      ['byre-linux-arm64', 'bun-linux-arm64', '@oven/bun-linux-aarch64'],
      ['byre-darwin-arm64', 'bun-darwin-arm64', '@oven/bun-darwin-aarch64'],
      ['byre-darwin-x64', 'bun-darwin-x64', '@oven/bun-darwin-x64'],
    ]);
  });
});

describe('renderSums', () => {
  const hex = (c: string): string => c.repeat(64);

  it('writes sha256sum -c lines sorted by name', () => {
    const sums = new Map([
      ['byre-linux-x64', hex('b')],
      ['byre-darwin-x64', hex('a')],
    ]);
    expect(renderSums(sums)).toBe(`${hex('a')}  byre-darwin-x64\n${hex('b')}  byre-linux-x64\n`);
  });

  it.each([
    ['a short digest', 'byre', 'abc'],
    ['a name with a space', 'byre x', hex('a')],
    ['a name with a slash', '../byre', hex('a')],
  ])('refuses %s', (_what, name, digest) => {
    expect(() => renderSums(new Map([[name, digest]]))).toThrow(RangeError);
  });
});

describe('lockedIntegrity', () => {
  const lock = {
    packages: {
      'node_modules/@oven/bun-darwin-aarch64': { version: '1.4.4', integrity: 'sha512-abc' },
      'node_modules/@oven/bun-linux-x64': { version: '1.4.4' },
    },
  };

  it('returns the pinned sha512', () => {
    expect(lockedIntegrity(lock, '@oven/bun-darwin-aarch64', '1.4.4')).toBe('sha512-abc');
  });

  it.each([
    ['an unlocked package', '@oven/bun-windows-x64', '1.4.4', /does not lock/],
    ['another version', '@oven/bun-darwin-aarch64', '1.5.0', /locks .*1\.4\.4.*npm install/],
    ['a missing integrity', '@oven/bun-linux-x64', '1.4.4', /no sha512/],
  ])('refuses %s', (_what, pkg, version, message) => {
    expect(() => lockedIntegrity(lock, pkg, version)).toThrow(message);
  });

  it('finds every release runtime in this checkout’s package-lock.json', async () => {
    const { readFileSync } = await import('node:fs');
    const real: unknown = JSON.parse(readFileSync('package-lock.json', 'utf8'));
    const bun = (
      JSON.parse(readFileSync('node_modules/bun/package.json', 'utf8')) as { version: string }
    ).version;
    for (const t of RELEASE_TARGETS) {
      expect(lockedIntegrity(real, t.runtimePackage, bun)).toMatch(/^sha512-/);
    }
  });
});
