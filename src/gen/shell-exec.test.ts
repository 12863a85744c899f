import { realpathSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Io } from '../io.js';
import { shellCommand } from '../commands/shell.js';
import { FakeEngine } from '../../test/support/fake-engine.js';
import { fakeIo } from '../../test/support/io.js';
import { makeTempDir, removeTempDir } from '../../test/support/temp.js';
import { ByreError, PassthroughExit } from '../errors.js';
import { projectIdFor } from '../project/identity.js';
import { shellExecSpec, uidCheckApplies } from './shell-exec.js';

const base = {
  id: 'a'.repeat(64),
  boxEnv: { BYRE_UID: '1000', BYRE_GID: '1001', BYRE_PROJECT: 'p-123456', PATH: '/usr/bin' },
  engineName: 'docker' as const,
  callerUid: 1000,
  skipUidCheck: false,
  tty: true,
};

describe('shellExecSpec', () => {
  it('runs bash -l as the box ids with HOME and the BYRE_* env', () => {
    expect(shellExecSpec(base)).toEqual({
      id: base.id,
      command: ['bash', '-l'],
      user: '1000:1001',
      workdir: '/workspace',
      env: { HOME: '/home/dev', BYRE_UID: '1000', BYRE_GID: '1001', BYRE_PROJECT: 'p-123456' },
      interactive: true,
      tty: true,
    });
  });

  it('runs one command through the login environment, its argv passed as data', () => {
    const spec = shellExecSpec({ ...base, command: ['printf', '%s\n', '$(id)', "a'b"] });
    expect(spec.command).toEqual([
      'bash',
      '-lc',
      'exec "$@"',
      'byre-shell',
      'printf',
      '%s\n',
      '$(id)',
      "a'b",
    ]);
    expect(shellExecSpec({ ...base, command: [] }).command).toEqual(['bash', '-l']);
  });

  it('refuses a box without ids', () => {
    expect(() => shellExecSpec({ ...base, boxEnv: { BYRE_UID: 'x' } })).toThrow(
      expect.objectContaining({ rule: 'shell.no-ids' }) as ByreError,
    );
  });

  it('refuses a foreign uid unless told to skip the check', () => {
    expect(() => shellExecSpec({ ...base, callerUid: 1234 })).toThrow(
      expect.objectContaining({ rule: 'shell.foreign-box' }) as ByreError,
    );
    expect(shellExecSpec({ ...base, callerUid: 1234, skipUidCheck: true }).user).toBe('1000:1001');
  });

  it('rootless podman is caller-scoped: no uid check', () => {
    expect(uidCheckApplies('podman', 1234)).toBe(false);
    expect(uidCheckApplies('podman', 0)).toBe(true);
    expect(uidCheckApplies('docker', 1234)).toBe(true);
    expect(shellExecSpec({ ...base, engineName: 'podman', callerUid: 1234 }).tty).toBe(true);
  });
});

describe('shellCommand', () => {
  const dir = makeTempDir('shell');
  const io = (): Io => fakeIo({ cwd: dir, env: { BYRE_HOME: path.join(dir, 'home') } });

  afterAll(() => removeTempDir(dir));

  /** An engine running this directory's box. */
  function boxHere(): FakeEngine {
    const engine = new FakeEngine();
    const id = projectIdFor(realpathSync(dir));
    engine.addContainer({
      name: `byre-${id}`,
      labels: { 'byre.project': id, 'byre.workdir': id },
      env: { BYRE_UID: '1000', BYRE_GID: '1000' },
    });
    return engine;
  }

  it('errors clearly when no session runs here', async () => {
    const engine = new FakeEngine();
    await expect(
      shellCommand(io(), {}, { pool: { members: [{ name: 'docker', state: 'ok', engine }] } }),
    ).rejects.toMatchObject({
      rule: 'shell.no-session',
      exitCode: 1,
      remedy: expect.stringContaining('byre develop'),
    });
  });

  it('execs into this directory’s box and passes a non-zero status through', async () => {
    const engine = boxHere();
    engine.onExec = () => ({ exitCode: 7, stdout: '', stderr: '' });
    await expect(
      shellCommand(io(), {}, { pool: { members: [{ name: 'docker', state: 'ok', engine }] } }),
    ).rejects.toBeInstanceOf(PassthroughExit);
    expect(engine.callsTo('execAttached')[0]?.[0]).toMatchObject({
      user: '1000:1000',
      command: ['bash', '-l'],
      tty: false,
    });
  });

  it('runs `-- <cmd>` without a terminal when stdout is piped, and passes its status', async () => {
    const engine = boxHere();
    engine.onExec = () => ({ exitCode: 3, stdout: '', stderr: '' });
    const piped = { ...io(), stdinIsTty: true, stdoutIsTty: false };
    await expect(
      shellCommand(
        piped,
        { command: ['make', 'test'] },
        { pool: { members: [{ name: 'docker', state: 'ok', engine }] } },
      ),
    ).rejects.toMatchObject({ code: 3 });
    expect(engine.callsTo('execAttached')[0]?.[0]).toMatchObject({
      command: ['bash', '-lc', 'exec "$@"', 'byre-shell', 'make', 'test'],
      interactive: true,
      tty: false,
    });
  });
});
