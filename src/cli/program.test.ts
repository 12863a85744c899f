import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { EXIT, UsageError } from '../errors.js';
import { VERSION } from '../embedded.js';
import { COMMIT } from '../generated/embedded.js';
import { completionScript } from './completion.js';
import { buildProgram, runCli } from './program.js';
import { describeTree } from './tree.js';
import { fakeIo } from '../../test/support/io.js';

describe('runCli', () => {
  it.each([['--version'], ['-V'], ['version']])('%s prints the version', async (flag) => {
    const io = fakeIo();
    expect(await runCli([flag], io)).toBe(0);
    expect(io.out).toBe(
      `byre ${VERSION} (commit ${COMMIT}, ${process.platform}-${process.arch})\n`,
    );
  });

  it('--help lists every command', async () => {
    const io = fakeIo();
    expect(await runCli(['--help'], io)).toBe(0);
    const help = io.out;
    for (const name of describeTree(buildProgram(io)).subcommands.map((c) => c.name)) {
      expect(help).toContain(name);
    }
  });

  it.each([
    [['nope'], /unknown command 'nope'/],
    [['version', '--frobnicate'], /unknown option '--frobnicate'/],
    [['completion'], /missing required argument 'shell'/],
    [['version', 'extra'], /too many arguments/],
    [[], /a command is required/],
  ])('%j is a usage error (exit 2)', async (argv, message) => {
    const io = fakeIo();
    const result = runCli(argv, io);
    await expect(result).rejects.toBeInstanceOf(UsageError);
    await expect(result).rejects.toMatchObject({
      exitCode: EXIT.usage,
      message: expect.stringMatching(message),
    });
  });
});

describe('completion', () => {
  const tree = describeTree(buildProgram(fakeIo()));

  it.each(['bash', 'zsh', 'fish'])('%s script names every command', (shell) => {
    const script = completionScript(shell, tree);
    for (const c of tree.subcommands) expect(script).toContain(c.name);
  });

  it('bash script is valid bash', () => {
    expect(() =>
      execFileSync('bash', ['-n'], { input: completionScript('bash', tree) }),
    ).not.toThrow();
  });

  it('an unknown shell is a usage error', () => {
    expect(() => completionScript('tcsh', tree)).toThrow(UsageError);
  });
});
