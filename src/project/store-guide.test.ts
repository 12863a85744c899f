import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { syncStoreGuide } from './store-guide.js';

let root: string;
let home: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'byre-guide-')));
  home = path.join(root, 'home');
  mkdirSync(home, { mode: 0o700 });
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('the store guide', () => {
  it('names this byre, the consent rule and every store entry', async () => {
    await syncStoreGuide(home, '9.8.7');
    const text = readFileSync(path.join(home, 'AGENTS.md'), 'utf8');
    expect(text).toContain('Written by byre 9.8.7.');
    expect(text).not.toContain('{{');
    expect(text).toContain("`projects/<id>/byre.config` is the user's consent document");
    for (const entry of [
      'default.config',
      'layers/<name>/layer.config',
      'packages/<digest>/',
      'bundled/',
      'projects/<id>/launches/<sha256>.toml',
      'projects/<id>/context/',
    ]) {
      expect(text).toContain(`\`${entry}`);
    }
  });

  it('is written when missing, left alone when equal, rewritten when it differs', async () => {
    const file = path.join(home, 'AGENTS.md');
    expect(await syncStoreGuide(home, '1.0.0')).toBe(true);
    const written = readFileSync(file, 'utf8');
    expect(written).toContain('Written by byre 1.0.0.');
    expect(await syncStoreGuide(home, '1.0.0')).toBe(false);
    writeFileSync(file, 'edited by someone\n');
    expect(await syncStoreGuide(home, '1.0.0')).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe(written);
    expect(await syncStoreGuide(home, '1.1.0')).toBe(true);
    expect(readFileSync(file, 'utf8')).toContain('Written by byre 1.1.0.');
  });

  it('replaces a symlink rather than writing through it', async () => {
    const target = path.join(root, 'elsewhere.md');
    writeFileSync(target, 'keep me\n');
    symlinkSync(target, path.join(home, 'AGENTS.md'));
    expect(await syncStoreGuide(home, '1.0.0')).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('keep me\n');
    expect(lstatSync(path.join(home, 'AGENTS.md')).isFile()).toBe(true);
  });
});
