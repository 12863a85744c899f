import { describe, expect, it } from 'vitest';
import { DROP_PRIVILEGES } from '../engine/argv.js';
import {
  NO_GIT_EXIT,
  worktreeAddArgv,
  worktreeHelperBinds,
  worktreeRemoveArgv,
  type WorktreeHelperInput,
} from './worktree-helper.js';
import { provenScript } from './bind-proof.js';

const input: WorktreeHelperInput = {
  image: 'byre-app-1a2b3c-u1000-g1000',
  uid: 1000,
  gid: 1000,
  keepId: false,
  main: '/src/app',
  commonGitDir: '/src/app/.git',
  target: '/src/app-feat',
  targetExists: true,
  targetId: 'app-feat-src-9f8e7d',
};

/** The scripts the helpers run when there is no bind to prove. */
const ADD_SCRIPT = worktreeAddArgv(input, 'feat').at(-1) ?? '';
const REMOVE_SCRIPT = worktreeRemoveArgv(input, false).at(-1) ?? '';
/** The bind check as byre's helpers carry it: what a proven script puts in front. */
const BIND_PROOF_SH = provenScript('', []);

describe('worktree helper argv', () => {
  it('registers in a network-less container without capabilities or new privileges, git paths bound at their own paths, main read-only', () => {
    expect(worktreeAddArgv(input, 'feat')).toEqual([
      'run',
      '--rm',
      '--pull=never',
      '--name',
      'byre-wtadd-app-feat-src-9f8e7d',
      '--entrypoint',
      'sh',
      '--network',
      'none',
      ...DROP_PRIVILEGES,
      '-u',
      '1000:1000',
      '-e',
      'BYRE_WT_MAIN=/src/app',
      '-e',
      'BYRE_WT_TARGET=/src/app-feat',
      '-e',
      'BYRE_WT_BRANCH=feat',
      '-e',
      'GIT_CONFIG_COUNT=1',
      '-e',
      'GIT_CONFIG_KEY_0=safe.directory',
      '-e',
      'GIT_CONFIG_VALUE_0=*',
      '-e',
      'HOME=/tmp',
      '--mount',
      'type=bind,source=/src/app,target=/src/app,readonly',
      '--mount',
      'type=bind,source=/src/app/.git,target=/src/app/.git',
      '--mount',
      'type=bind,source=/src/app-feat,target=/src/app-feat',
      'byre-app-1a2b3c-u1000-g1000',
      '-c',
      expect.stringContaining('git worktree add --no-checkout'),
    ]);
  });

  it('proves each bind before git runs when given a proof (adr/0045), in bind order', () => {
    const proof = [
      { target: '/src/app', dev: 1n, ino: 2n },
      { target: '/src/app/.git', dev: 1n, ino: 3n },
      { target: '/src/app-feat', dev: 1n, ino: 4n },
    ];
    const argv = worktreeRemoveArgv({ ...input, proof }, false);
    expect(argv).toContain('BYRE_BIND_PROOF=1:2:/src/app,1:3:/src/app/.git,1:4:/src/app-feat');
    expect(argv.at(-1)).toBe(`${BIND_PROOF_SH}${REMOVE_SCRIPT}`);
    expect(worktreeAddArgv({ ...input, proof }, 'feat').at(-1)).toBe(
      `${BIND_PROOF_SH}${ADD_SCRIPT}`,
    );
    expect(worktreeHelperBinds(input).map((b) => b.path)).toEqual(proof.map((p) => p.target));
    expect(worktreeHelperBinds({ ...input, targetExists: false }).map((b) => b.path)).toEqual([
      '/src/app',
      '/src/app/.git',
    ]);
  });

  it('runs under keep-id on rootless podman', () => {
    expect(worktreeAddArgv({ ...input, keepId: true }, 'feat')).toContain(
      '--userns=keep-id:uid=1000,gid=1000',
    );
  });

  it('removes without mounting a directory that is gone; --force reaches git', () => {
    const argv = worktreeRemoveArgv({ ...input, targetExists: false }, true);
    expect(argv).toContain('BYRE_WT_FORCE=1');
    expect(argv.filter((a) => a.includes('app-feat,'))).toEqual([]);
    expect(argv.at(-1)).toBe(REMOVE_SCRIPT);
    expect(worktreeRemoveArgv(input, false)).not.toContain('BYRE_WT_FORCE=1');
  });

  it('never checks out (hooks and filters run only in the box) and leaves the marker', () => {
    expect(ADD_SCRIPT).toContain('git worktree add --no-checkout');
    expect(ADD_SCRIPT).toContain('byre-needs-checkout');
    expect(ADD_SCRIPT).toContain(`exit ${NO_GIT_EXIT}`);
    expect(REMOVE_SCRIPT).toContain('git worktree remove "$@" "$BYRE_WT_TARGET"');
  });
});
