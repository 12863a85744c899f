import { describe, expect, it } from 'vitest';

import { checkTarEntry } from './tar-entry.js';

describe('checkTarEntry', () => {
  it.each([
    ['a.txt', 'file', ['a.txt'], 'file'],
    ['dir/', 'directory', ['dir'], 'dir'],
    ['dir/sub/x', 'file', ['dir', 'sub', 'x'], 'file'],
    ['we ird\nname', 'file', ['we ird\nname'], 'file'],
  ])('accepts %j', (name, type, components, kind) => {
    expect(checkTarEntry({ name, type })).toEqual({ ok: true, components, kind });
  });

  it.each([
    ['../x', 'file', 'transfer.tar-dotdot'],
    ['a/../../x', 'file', 'transfer.tar-dotdot'],
    ['/etc/passwd', 'file', 'transfer.tar-absolute'],
    ['./a', 'file', 'transfer.tar-path'],
    ['a//b', 'file', 'transfer.tar-path'],
    ['', 'file', 'transfer.tar-path'],
    ['link', 'symlink', 'transfer.tar-link'],
    ['hard', 'link', 'transfer.tar-link'],
    ['fifo', 'fifo', 'transfer.tar-special'],
    ['dev', 'character-device', 'transfer.tar-special'],
  ])('refuses %j (%s)', (name, type, rule) => {
    expect(checkTarEntry({ name, type })).toMatchObject({ ok: false, rule });
  });
});
