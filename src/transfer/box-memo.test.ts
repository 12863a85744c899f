import { readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { useTempDir } from '../../test/support/temp.js';
import { boxesFromMemo, nextMemo, readMemo, writeMemo, type MemoBox } from './box-memo.js';
import { privateDirAt } from '../host/runtime-dir.js';

const box = (c: string, workdir = `w-${c}`): MemoBox => ({
  id: c.repeat(64),
  projectId: `p-${c}`,
  workdirId: workdir,
  uid: 1000,
  gid: 1001,
});

describe('the memo format', () => {
  const temp = useTempDir('memo-format');
  const file = (): string => path.join(temp.path, 'podman-boxes');

  it('round-trips its entries', () => {
    writeMemo(temp.path, [box('a'), box('b')]);
    expect(readFileSync(file(), 'utf8').split('\n')[0]).toBe('byre podman boxes 1');
    expect([...readMemo(temp.path).values()]).toEqual([box('a'), box('b')]);
  });

  it('never writes an entry whose labels are not one plain word', () => {
    const odd = [
      { ...box('a'), workdirId: 'two words' },
      { ...box('b'), projectId: 'p\nq' },
      { ...box('c'), id: 'short' },
      { ...box('d'), uid: -1 },
      box('e'),
    ];
    writeMemo(temp.path, odd);
    expect([...readMemo(temp.path).keys()]).toEqual(['e'.repeat(64)]);
  });

  it.each([
    ['another header', 'byre podman boxes 2\n'],
    ['no final newline', `byre podman boxes 1\n${'a'.repeat(64)} p w 1 1`],
    ['a short line', `byre podman boxes 1\n${'a'.repeat(64)} p w 1\n`],
    ['a long line', `byre podman boxes 1\n${'a'.repeat(64)} p w 1 1 x\n`],
    ['a bad id', `byre podman boxes 1\n${'A'.repeat(64)} p w 1 1\n`],
    ['a bad uid', `byre podman boxes 1\n${'a'.repeat(64)} p w 1x 1\n`],
    ['a blank line', `byre podman boxes 1\n\n`],
  ])('refuses a file with %s', (_why, text) => {
    // A good entry after the header: a file read at all would yield it.
    const [header, ...rest] = text.split('\n');
    writeFileSync(file(), [header, `${'f'.repeat(64)} p w 1 1`, ...rest].join('\n'));
    expect(readMemo(temp.path).size).toBe(0);
  });
});

describe('boxesFromMemo', () => {
  const memo = new Map([box('a'), box('b')].map((b) => [b.id, b]));

  it("rebuilds podman's answer when every monitored container is a remembered box", () => {
    expect(boxesFromMemo(['b'.repeat(64)], memo)).toEqual([box('b')]);
    expect(boxesFromMemo([], memo)).toEqual([]);
  });

  it('gives up when any monitored container is not remembered', () => {
    expect(boxesFromMemo(['a'.repeat(64), 'c'.repeat(64)], memo)).toBeNull();
    expect(boxesFromMemo(['a'.repeat(64)], new Map())).toBeNull();
  });
});

describe('nextMemo', () => {
  it('keeps what podman listed and remembered boxes whose monitor lives; drops the rest', () => {
    const memo = new Map([box('a'), box('b')].map((b) => [b.id, b]));
    const next = nextMemo(memo, ['b'.repeat(64), 'c'.repeat(64)], [box('c'), box('d')]);
    expect(next.map((b) => b.id[0])).toEqual(['b', 'c', 'd']);
  });

  it('prefers what podman just listed over what was remembered', () => {
    const memo = new Map([[box('a').id, { ...box('a'), uid: 1 }]]);
    expect(nextMemo(memo, [box('a').id], [box('a')])).toEqual([box('a')]);
  });
});

describe('the memo on disk', () => {
  const temp = useTempDir('memo');
  const uid = process.getuid?.() ?? 0;

  it('writes whole files and reads them back', () => {
    const dir = privateDirAt(path.join(temp.path, 'byre'), uid) ?? '';
    writeMemo(dir, [box('a')]);
    expect(statSync(path.join(dir, 'podman-boxes')).mode & 0o777).toBe(0o600);
    expect([...readMemo(dir).values()]).toEqual([box('a')]);
    writeMemo(dir, [box('b')]);
    expect([...readMemo(dir).keys()]).toEqual(['b'.repeat(64)]);
    expect(readFileSync(path.join(dir, 'podman-boxes'), 'utf8')).toBe(
      `byre podman boxes 1\n${'b'.repeat(64)} p-b w-b 1000 1001\n`,
    );
  });

  it('reads nothing from a link, a FIFO or a file not in its format', () => {
    const dir = privateDirAt(path.join(temp.path, 'byre'), uid) ?? '';
    const elsewhere = path.join(temp.path, 'elsewhere');
    writeMemo(temp.path, [box('a')]);
    writeFileSync(elsewhere, readFileSync(path.join(temp.path, 'podman-boxes')));
    symlinkSync(elsewhere, path.join(dir, 'podman-boxes'));
    expect(readMemo(dir).size).toBe(0);
    rmSync(path.join(dir, 'podman-boxes'));
    execFileSync('mkfifo', [path.join(dir, 'podman-boxes')]);
    expect(readMemo(dir).size).toBe(0);
    rmSync(path.join(dir, 'podman-boxes'));
    writeFileSync(path.join(dir, 'podman-boxes'), 'not a memo\n');
    expect(readMemo(dir).size).toBe(0);
  });
});
