import { describe, expect, it } from 'vitest';

import { fakeIo } from '../../test/support/io.js';
import { UsageError } from '../errors.js';
import type { InstallDeliverAppOptions } from '../transfer/app/install.js';
import { StagePlan } from '../transfer/stage-plan.js';
import { deliverCommand } from './deliver.js';

describe('deliver --install-app wiring', () => {
  it('hands the installer byre’s own path, the target, --box and --name; paths to stdout, notes to stderr', async () => {
    const io = fakeIo({ cwd: '/', env: { PATH: '' }, stdinIsTty: true });
    const seen: InstallDeliverAppOptions[] = [];
    await deliverCommand(
      io,
      ['ssh://me@h:2222'],
      { installApp: true, box: 'ab12', name: 'build', remoteByre: '/opt/byre' },
      {
        execPath: '/usr/local/bin/byre',
        home: '/home/me',
        platform: 'linux',
        lookup: () => ({ kind: 'absent' }),
        install: async (o) => {
          seen.push(o);
          return {
            installed: ['/home/me/a.desktop', '/home/me/\x1bicon.png'],
            notes: ['skipped x'],
          };
        },
      },
    );
    expect(seen).toMatchObject([
      {
        byrePath: '/usr/local/bin/byre',
        ssh: 'ssh://me@h:2222',
        box: 'ab12',
        label: 'build',
        remoteByre: '/opt/byre',
        home: '/home/me',
        platform: 'linux',
      },
    ]);
    expect(io.out).toBe('/home/me/a.desktop\n/home/me/\\x1bicon.png\n');
    expect(io.err).toBe('byre: skipped x\n');
  });

  it('refuses paths before installing anything', async () => {
    const io = fakeIo({ cwd: '/', env: { PATH: '' }, stdinIsTty: true });
    let called = false;
    const run = deliverCommand(
      io,
      ['a.txt'],
      { installApp: true },
      {
        install: async () => {
          called = true;
          return { installed: [], notes: [] };
        },
      },
    );
    await expect(run).rejects.toBeInstanceOf(UsageError);
    expect(called).toBe(false);
  });
});

describe('the flat layout a remote upload uses', () => {
  it('puts items at the top and keeps two same-named sources apart', () => {
    const plan = new StagePlan('flat');
    expect(plan.addItem('x.txt', 'file')).toBe('x.txt');
    expect(plan.addItem('x.txt', 'file')).toBe('x-2.txt');
    const dir = plan.addItem('tree', 'dir');
    expect(plan.place(dir, ['sub', 'b'], 'file')).toEqual({
      path: 'tree/sub/b',
      parents: ['tree/sub'],
    });
    expect(plan.addItem('a\nb', 'file')).toBe('a_b');
    expect(plan.renames).toEqual([
      { from: 'x.txt', to: 'x-2.txt' },
      { from: 'a\nb', to: 'a_b' },
    ]);
  });

  it('the staged layout is unchanged', () => {
    const plan = new StagePlan();
    expect(plan.addItem('x.txt', 'file')).toBe('000001/x.txt');
    expect(plan.addItem('x.txt', 'file')).toBe('000002/x.txt');
  });
});
