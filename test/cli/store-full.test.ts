// A store that cannot be written, for real: BYRE_HOME on a small tmpfs filled
// to the last block (ENOSPC), then remounted read-only (EROFS). Every verb
// that writes the store ends at once with a located error (the file, the
// reason, a remedy), exit 1, never the crash banner, and leaves the config
// as it was. Mounting needs root, as the tier runs in CI; elsewhere this file
// skips (a non-root run cannot make a filesystem full or read-only on its own).

import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { projectIdFor } from '../../src/project/identity.js';
import { runBin, type BinRun } from '../support/cli.js';
import { makeTempDir, removeTempDir } from '../support/temp.js';

const PASS = 'store-full passphrase';
const isRoot = process.getuid?.() === 0;

let root = '';
let store = '';
let project = '';

function byre(
  args: readonly string[],
  options: { cwd?: string; home?: string; input?: string; fd3?: string } = {},
): BinRun {
  return runBin(args, {
    cwd: options.cwd ?? project,
    home: options.home ?? store,
    // No engine on PATH: develop must fail at its first store write, not at detection.
    env: { PATH: '/nonexistent', HOME: root },
    inherit: false,
    ...(options.input === undefined ? {} : { input: options.input }),
    ...(options.fd3 === undefined ? {} : { fd3: options.fd3 }),
    // A verb that waits (the setup lock retrying a read-only store) fails here.
    timeout: 20_000,
  });
}

function ok(run: BinRun): void {
  expect(run.stderr).not.toContain('CRASHED');
  expect(run.status, run.stderr).toBe(0);
}

function mount(args: readonly string[]): void {
  const r = spawnSync('mount', [...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`mount ${args.join(' ')}: ${r.stderr}`);
}

function claudeSkill(name: string): string {
  const dir = path.join(root, `cs-${name}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'SKILL.md'),
    `---\nname: ${name}\ndescription: a test skill\n---\nbody\n`,
  );
  return dir;
}

function projectConfig(): string {
  return readFileSync(path.join(store, 'projects', projectIdFor(project), 'byre.config'), 'utf8');
}

/** A packed skill outside the store, for `skill install` to snapshot. */
function packedSkill(): string {
  const home = path.join(root, 'author-home');
  ok(byre(['skill', 'init', 'owner/pk'], { home }));
  const pkg = path.join(root, 'pkg');
  mkdirSync(pkg);
  const src = path.join(home, 'skills', 'owner', 'pk');
  for (const f of ['skill.toml', 'context.md']) {
    writeFileSync(path.join(pkg, f), readFileSync(path.join(src, f)));
  }
  const manifest = path.join(pkg, 'manifest.toml');
  ok(byre(['skill', 'pack', 'owner/pk', '--out', manifest], { home }));
  return manifest;
}

interface Verb {
  name: string;
  /** `@/` stands for the test's root directory (known only once it runs). */
  args: string[];
  input?: string;
  fd3?: string;
  cwd?: string;
}

/**
 * Every store-writing verb, with what it needs (`credential rekey` writes
 * through the same config writer as add and remove, and costs two scrypt
 * seals: left out).
 */
function verbs(): Verb[] {
  return [
    { name: 'mcp add', args: ['mcp', 'add', 'srv2', '--', 'echo', 'hi'] },
    { name: 'mcp remove', args: ['mcp', 'remove', 'srv'] },
    { name: 'context add', args: ['context', 'add', 'ctx2', '--text', 'more'] },
    { name: 'context remove', args: ['context', 'remove', 'ctx'] },
    { name: 'claude-skill add', args: ['claude-skill', 'add', '@/cs-other'] },
    { name: 'claude-skill remove', args: ['claude-skill', 'remove', 'first'] },
    {
      name: 'credential add',
      args: ['credential', 'add', 'KEY2', '--passphrase-fd', '3'],
      input: 'value-two',
      fd3: PASS,
    },
    { name: 'credential remove', args: ['credential', 'remove', 'KEY'] },
    { name: 'layer new', args: ['layer', 'new', 'lay2'] },
    { name: 'preset apply', args: ['preset', 'apply', '@/byre.preset', '--yes'] },
    { name: 'skill init', args: ['skill', 'init', 'sk2'] },
    { name: 'skill fork', args: ['skill', 'fork', 'sk1', 'sk3'] },
    { name: 'template init', args: ['template', 'init', 'tp1'] },
    { name: 'skill install', args: ['skill', 'install', '@/pkg/manifest.toml'] },
    // A first develop in a new directory: its path record is the first write.
    { name: 'develop (first run)', args: ['develop'], cwd: '@/fresh' },
  ];
}

describe.skipIf(!isRoot)('a store that cannot be written (needs root to mount a tmpfs)', () => {
  let config = '';

  beforeAll(() => {
    root = makeTempDir('store-full');
    store = path.join(root, 'store');
    project = path.join(root, 'proj');
    mkdirSync(store);
    mkdirSync(project);
    mkdirSync(path.join(root, 'fresh'));
    mount(['-t', 'tmpfs', '-o', 'size=1m,mode=0700', 'tmpfs', store]);
    claudeSkill('first');
    claudeSkill('other');
    writeFileSync(path.join(root, 'byre.preset'), 'agent = ""\n');
    packedSkill();
    ok(byre(['mcp', 'add', 'srv', '--', 'echo', 'hi']));
    ok(byre(['context', 'add', 'ctx', '--text', 'hi']));
    ok(byre(['claude-skill', 'add', path.join(root, 'cs-first')]));
    ok(byre(['credential', 'add', 'KEY', '--passphrase-fd', '3'], { input: 'v', fd3: PASS }));
    ok(byre(['skill', 'init', 'sk1']));
    config = projectConfig();
    // Fill the filesystem to its last block.
    spawnSync('dd', ['if=/dev/zero', `of=${path.join(store, 'fill')}`, 'bs=4k'], {
      stdio: 'ignore',
    });
  }, 60_000);

  afterAll(() => {
    if (root === '') return;
    spawnSync('umount', ['-l', store]);
    removeTempDir(root);
  });

  const refusedWith = (reason: RegExp, v: Verb): void => {
    const at = (s: string): string => (s.startsWith('@/') ? path.join(root, s.slice(2)) : s);
    const run = byre(v.args.map(at), {
      ...(v.input === undefined ? {} : { input: v.input }),
      ...(v.fd3 === undefined ? {} : { fd3: v.fd3 }),
      ...(v.cwd === undefined ? {} : { cwd: at(v.cwd) }),
    });
    expect(run.stderr).not.toContain('CRASHED');
    expect(run.status, run.stderr).toBe(1);
    const storePath = store.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    expect(run.stderr).toMatch(
      new RegExp(`byre: cannot write (the setup lock )?${storePath}/\\S+: ${reason.source}`),
    );
    expect(run.stderr).toMatch(/\n {2}fix: .*then run the command again/);
    expect(projectConfig()).toBe(config);
  };

  describe('full (ENOSPC)', () => {
    it.each(verbs().map((v) => [v.name, v] as const))('%s', (_name, v) => {
      refusedWith(/no space left on device/, v);
    });
  });

  // One verb per way of writing: the locked and the unlocked config writer,
  // the package author and installer, the path record.
  const READ_ONLY = ['mcp add', 'layer new', 'skill init', 'skill install', 'develop (first run)'];

  describe('read-only (EROFS), without waiting on the setup lock', () => {
    beforeAll(() => {
      mount(['-o', 'remount,ro', store]);
    });
    it.each(
      verbs()
        .filter((v) => READ_ONLY.includes(v.name))
        .map((v) => [v.name, v] as const),
    )(
      '%s',
      (_name, v) => {
        refusedWith(/read-only file system/, v);
      },
      30_000,
    );
  });
});
