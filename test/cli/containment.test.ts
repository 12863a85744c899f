// The built binary refuses a box that would reach byre's own files (the
// store, the executable, the home directory), before it writes or asks an
// engine anything; status shows the refusal and exits 3; dockerrun refuses.

import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BYRE_BIN, runBin, type BinRun } from '../support/cli.js';
import { useTempDir } from '../support/temp.js';
import { projectIdFor } from '../../src/project/identity.js';
import { renderTreesRecord } from '../../src/launch/trees-record.js';

const BIN = BYRE_BIN;
let root: string;

useTempDir('cli-contain', (tmp) => {
  root = tmp;
});

/** No engine on PATH: anything that reached an engine would fail differently. */
function byre(
  bin: string,
  cwd: string,
  home: string,
  args: string[],
  extraEnv: Record<string, string> = {},
): BinRun {
  return runBin(args, {
    bin,
    cwd,
    home,
    inherit: false,
    env: { HOME: path.join(root, 'userhome'), PATH: path.join(root, 'no-engines'), ...extraEnv },
  });
}

function storeConfig(home: string, project: string, text: string): void {
  const dir = path.join(home, 'projects', projectIdFor(project));
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'byre.config'), text);
}

describe('containment: byre’s own files are never in the box', () => {
  it('develop in a directory holding the store refuses (exit 3) and creates nothing', () => {
    const project = path.join(root, 'proj');
    const home = path.join(project, 'store');
    mkdirSync(project, { recursive: true });
    const r = byre(BIN, project, home, ['develop']);
    expect(r.status).toBe(3);
    expect(r.stderr).toContain("contains byre's store");
    expect(r.stderr).toMatch(/fix: .*BYRE_HOME/);
    expect(existsSync(home)).toBe(false);
    expect(readdirSync(project)).toEqual([]);
  });

  it('develop in the home directory refuses', () => {
    const userHome = path.join(root, 'userhome');
    mkdirSync(userHome, { recursive: true });
    const r = byre(BIN, userHome, path.join(userHome, '.byre'), ['develop']);
    expect(r.status).toBe(3);
    expect(r.stderr).toContain('is your home directory');
    expect(existsSync(path.join(userHome, '.byre'))).toBe(false);
  });

  it('develop from a directory holding the running byre refuses', () => {
    const project = path.join(root, 'tools');
    mkdirSync(path.join(project, 'bin'), { recursive: true });
    const bin = path.join(project, 'bin', 'byre');
    copyFileSync(BIN, bin);
    const home = path.join(root, 'store');
    const r = byre(bin, project, home, ['develop']);
    expect(r.status).toBe(3);
    expect(r.stderr).toContain('contains the byre executable');
    expect(existsSync(home)).toBe(false);
  });

  // A remedy never names a place the same rule refuses: ~/.local/bin lies
  // inside a project directory of ~ or ~/.local.
  it.each([[''], ['.local']])(
    'develop in ~/%s with byre in ~/.local/bin never suggests ~/.local/bin',
    (sub) => {
      const userHome = path.join(root, 'userhome');
      const bin = path.join(userHome, '.local', 'bin', 'byre');
      mkdirSync(path.dirname(bin), { recursive: true });
      copyFileSync(BIN, bin);
      const r = byre(bin, path.join(userHome, sub), path.join(root, 'store'), ['develop']);
      expect(r.status).toBe(3);
      expect(r.stderr).toContain('contains the byre executable');
      expect(r.stderr).toContain('install byre outside this directory (e.g. /usr/local/bin)');
      expect(r.stderr).not.toContain('.local/bin)');
    },
  );

  describe('a mount of the store', () => {
    const mounted = (mode: string) => {
      const project = path.join(root, 'app');
      const home = path.join(root, 'store');
      mkdirSync(project, { recursive: true });
      storeConfig(
        home,
        project,
        `[[mounts]]\nhost = "${home}"\ntarget = "/mnt/store"\nmode = "${mode}"\n`,
      );
      return { project, home };
    };

    it.each(['ro', 'rw'])('develop refuses a %s mount before asking an engine', (mode) => {
      const { project, home } = mounted(mode);
      const r = byre(BIN, project, home, ['develop']);
      expect(r.status).toBe(3);
      expect(r.stderr).toContain("contains byre's store");
      expect(r.stderr).not.toMatch(/docker|podman/);
    });

    it('dockerrun shows the same refusal and prints no command', () => {
      const { project, home } = mounted('ro');
      const r = byre(BIN, project, home, ['dockerrun']);
      expect(r.status).toBe(3);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain("contains byre's store");
    });

    it('status still renders, shows the refusal, and exits 3', () => {
      const { project, home } = mounted('rw');
      const page = byre(BIN, project, home, ['status']);
      expect(page.status).toBe(3);
      expect(page.stdout).toMatch(/^Refused: +the mount /m);
      expect(page.stdout).toContain('[containment.store]');
      expect(page.stderr).toContain("contains byre's store");
      const data = byre(BIN, project, home, ['status', '--data']);
      expect(data.status).toBe(3);
      const parsed = JSON.parse(data.stdout) as { refused: { rule: string; message: string }[] };
      expect(parsed.refused).toEqual([
        {
          rule: 'containment.store',
          message: expect.stringContaining(`the mount ${home} -> /mnt/store (rw) contains`),
        },
      ]);
    });
  });
});

describe('a default.config or layer kept elsewhere, linked from the store (adr/0058)', () => {
  function linked(): { project: string; home: string; dotfiles: string; target: string } {
    const project = path.join(root, 'linked-app');
    const home = path.join(root, 'linked-store');
    const dotfiles = path.join(root, 'dotfiles');
    const target = path.join(dotfiles, 'byre', 'default.config');
    mkdirSync(project, { recursive: true });
    mkdirSync(path.dirname(target), { recursive: true });
    mkdirSync(home, { recursive: true });
    writeFileSync(target, 'apt = ["jq"]\n');
    symlinkSync(target, path.join(home, 'default.config'));
    return { project, home, dotfiles, target };
  }

  it('is followed to a regular file', () => {
    const { project, home } = linked();
    const r = byre(BIN, project, home, ['dockerfile']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/apt-get install .*\bjq\b/);
  });

  it('a layer linked to a FIFO is refused, named, without blocking', () => {
    const { project, home, dotfiles } = linked();
    const fifo = path.join(dotfiles, 'pipe');
    execFileSync('mkfifo', [fifo]);
    mkdirSync(path.join(home, 'layers', 'team'), { recursive: true });
    symlinkSync(fifo, path.join(home, 'layers', 'team', 'layer.config'));
    storeConfig(home, project, 'extends = "team"\n');
    const r = byre(BIN, project, home, ['dockerfile']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`links to ${fifo}, a FIFO, not a regular file [config.not-file]`);
  });

  it('no box reaches the file it leads to: develop in the dotfiles directory refuses', () => {
    const { home, dotfiles, target } = linked();
    const r = byre(BIN, dotfiles, home, ['develop']);
    expect(r.status).toBe(3);
    expect(r.stderr).toContain(`reaches ${target}, a config file byre's store links to`);
    expect(r.stderr).not.toMatch(/docker|podman/);
  });
});

describe("containment: byre's runtime directory is never writable from a box (adr/0044)", () => {
  it('develop refuses a rw mount of /tmp (it holds it), allows a ro one, and status shows the refusal', () => {
    const project = path.join(root, 'rt-app');
    const home = path.join(root, 'rt-store');
    mkdirSync(project, { recursive: true });
    const uid = process.getuid?.() ?? 0;
    const mountTmp = (mode: string) =>
      storeConfig(
        home,
        project,
        `[[mounts]]\nhost = "/tmp"\ntarget = "/mnt/tmp"\nmode = "${mode}"\n`,
      );

    mountTmp('rw');
    const r = byre(BIN, project, home, ['develop']);
    expect(r.status).toBe(3);
    expect(r.stderr).toContain(`reaches byre's runtime directory /tmp/byre-${uid}`);
    expect(r.stderr).not.toMatch(/docker|podman/);
    const page = byre(BIN, project, home, ['status']);
    expect(page.status).toBe(3);
    expect(page.stdout).toContain('[containment.runtime]');

    mountTmp('ro');
    const ro = byre(BIN, project, home, ['status']);
    expect(ro.stdout).not.toContain('containment.runtime');
  });
});

describe('identity: a box is found only for the directory that owns the id', () => {
  it('shell refuses an id recorded for another directory before asking an engine', () => {
    const project = path.join(root, 'here');
    const home = path.join(root, 'store');
    mkdirSync(project, { recursive: true });
    const dir = path.join(home, 'projects', projectIdFor(project));
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'path'), '/somewhere/else\n');
    const r = byre(BIN, project, home, ['shell']);
    // Another directory's id is a refusal (adr/0023): nothing is touched.
    expect(r.status).toBe(3);
    expect(r.stderr).toContain('already belongs to /somewhere/else');
    expect(r.stderr).not.toMatch(/no session/);
  });
});

describe('files byre copies into the image', () => {
  function setup(config: string): { project: string; home: string } {
    const project = path.join(root, 'img');
    const home = path.join(root, 'store');
    mkdirSync(project, { recursive: true });
    storeConfig(home, project, config);
    return { project, home };
  }

  it('dockerfile refuses a [[context]] file in the project that is a link (adr/0046), naming the entry', () => {
    const secret = path.join(root, 'secret');
    writeFileSync(secret, 'host secret\n');
    const { project, home } = setup(
      `[[context]]\nname = "notes"\nfile = "${path.join(root, 'img', 'agent.md')}"\n`,
    );
    symlinkSync(secret, path.join(project, 'agent.md'));
    const r = byre(BIN, project, home, ['dockerfile']);
    expect(r.status).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('(key context[0].file)');
    expect(r.stderr).toMatch(/the context file .* through the link .*agent\.md -> ".*secret"/);
  });

  it('dockerfile refuses a [[context]] file outside the project that links out of its directory', () => {
    const secret = path.join(root, 'secret');
    writeFileSync(secret, 'host secret\n');
    mkdirSync(path.join(root, 'notes'));
    const file = path.join(root, 'notes', 'agent.md');
    symlinkSync(secret, file);
    const { project, home } = setup(`[[context]]\nname = "notes"\nfile = "${file}"\n`);
    const r = byre(BIN, project, home, ['dockerfile']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('(key context.notes)');
    expect(r.stderr).toMatch(/context "notes": .* is a link to .*secret/);
  });

  it('dockerfile refuses a files source that links out of the project, naming the entry', () => {
    const { project, home } = setup('[files]\n"seed" = "/opt/seed"\n');
    symlinkSync(path.join(root, 'secret-dir'), path.join(project, 'seed'));
    mkdirSync(path.join(root, 'secret-dir'));
    const r = byre(BIN, project, home, ['dockerfile']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('(key files."seed")');
    expect(r.stderr).toContain('resolves outside the project');
  });

  it('dockerfile names a missing files source', () => {
    const { project, home } = setup('[files]\n"gone.txt" = "/opt/gone"\n');
    const r = byre(BIN, project, home, ['dockerfile']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('(key files."gone.txt")');
    expect(r.stderr).toContain('does not exist');
  });

  it('dockerfile refuses a [[claude_skills]] directory that is not a Claude Skill, naming the entry', () => {
    const dir = path.join(root, 'cs', 'tdd');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'SKILL.md'), '---\nname: other\ndescription: d\n---\n');
    const { project, home } = setup(`[[claude_skills]]\nname = "tdd"\npath = "${dir}"\n`);
    const r = byre(BIN, project, home, ['dockerfile']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('(key claude_skills.tdd)');
    expect(r.stderr).toContain('SKILL.md names it "other", not "tdd"');
    writeFileSync(path.join(dir, 'SKILL.md'), '---\nname: tdd\ndescription: d\n---\n');
    expect(byre(BIN, project, home, ['dockerfile']).status).toBe(0);
  });
});

describe('a granted host path is never resolved through a link a box could plant (adr/0046)', () => {
  function planted(config: string): { project: string; home: string; secret: string } {
    const project = path.join(root, 'userhome', 'p');
    const home = path.join(root, 'store');
    const secret = path.join(root, 'userhome', '.ssh');
    mkdirSync(project, { recursive: true });
    mkdirSync(secret, { recursive: true });
    writeFileSync(path.join(secret, 'id_ed25519'), 'key\n');
    storeConfig(home, project, config);
    return { project, home, secret };
  }

  it('a rw mount inside the project that the box replaced with a link: every verb refuses, located', () => {
    const { project, home, secret } = planted(
      `[[mounts]]\nhost = "~/p/data"\ntarget = "/data"\nmode = "rw"\n`,
    );
    mkdirSync(path.join(project, 'data'));
    expect(byre(BIN, project, home, ['status']).status).toBe(0);
    // In the box: rm -r data; ln -s <home>/.ssh data
    rmSync(path.join(project, 'data'), { recursive: true });
    symlinkSync(secret, path.join(project, 'data'));
    for (const verb of ['status', 'dockerfile', 'dockerrun', 'develop']) {
      const r = byre(BIN, project, home, [verb]);
      expect(r.status, verb).toBe(3);
      // status shows the page with the refusal on it (adr/0018); the others print nothing.
      if (verb === 'status') {
        expect(r.stdout).toMatch(/^Refused: +the mount ~\/p\/data -> \/data \(rw\) reaches/m);
        expect(r.stdout).toContain('[containment.link-in-box-tree]');
      } else {
        expect(r.stdout, verb).toBe('');
      }
      expect(r.stderr, verb).toMatch(
        /byre\.config:2:1 \(key mounts\[0\]\.host\): the mount ~\/p\/data -> \/data \(rw\)/,
      );
      expect(r.stderr, verb).toContain(
        `through the link ${path.join(project, 'data')} -> "${secret}"`,
      );
      expect(r.stderr, verb).not.toMatch(/docker|podman/);
    }
    const data = byre(BIN, project, home, ['status', '--data']);
    expect(data.status).toBe(3);
    expect((JSON.parse(data.stdout) as { refused: { rule: string }[] }).refused).toEqual([
      expect.objectContaining({ rule: 'containment.link-in-box-tree' }),
    ]);
  });

  it('a volume seed inside the project replaced with a link is refused the same way', () => {
    const { project, home, secret } = planted(
      `[[volumes]]\nname = "cfg"\nrole = "state"\ntarget = "/cfg"\nseed = { host = "~/p/seed" }\n`,
    );
    symlinkSync(secret, path.join(project, 'seed'));
    const r = byre(BIN, project, home, ['status']);
    expect(r.status).toBe(3);
    expect(r.stderr).toContain('(key volumes[0].seed.host): the seed');
  });

  it("a user's link outside every box-writable tree is still followed", () => {
    const { project, home } = planted(`[[mounts]]\nhost = "~/data"\ntarget = "/data"\n`);
    mkdirSync(path.join(root, 'disk'));
    symlinkSync(path.join(root, 'disk'), path.join(root, 'userhome', 'data'));
    const r = byre(BIN, project, home, ['status']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/~\/data -> \/data/);
  });
});

describe('host tools are never taken from where a box can write (adr/0046)', () => {
  it('a docker planted in a read-write mount first on PATH is declined by status and develop, never run', () => {
    const project = path.join(root, 'p');
    const home = path.join(root, 'store');
    const tools = path.join(root, 'userhome', 'tools');
    mkdirSync(project, { recursive: true });
    mkdirSync(tools, { recursive: true });
    storeConfig(home, project, `[[mounts]]\nhost = "~/tools"\ntarget = "/tools"\nmode = "rw"\n`);
    const ran = path.join(root, 'ran');
    for (const tool of ['docker', 'podman', 'git']) {
      writeFileSync(path.join(tools, tool), `#!/bin/sh\necho ${tool} "$@" >> ${ran}\nexit 1\n`, {
        mode: 0o755,
      });
    }
    const env = { PATH: `${tools}:${path.join(root, 'no-engines')}` };
    const status = byre(BIN, project, home, ['status'], env);
    expect(status.stdout).toMatch(/declined to run (docker|podman)/);
    const develop = byre(BIN, project, home, ['develop'], env);
    expect(develop.status).toBe(3);
    expect(develop.stderr).toContain('declined to run docker');
    expect(develop.stderr).toContain(`${tools}, which the box can write`);
    const reset = byre(BIN, project, home, ['reset', '-y'], env);
    expect(reset.stderr).not.toContain('removed');
    expect(existsSync(ran)).toBe(false);
  });
});

describe("another project's box's read-write mount, recorded in the store, is a box-writable tree (adr/0046)", () => {
  /** The store records that project a's box was launched with ~/shared read-write; a's config no longer says so. */
  function launchedShared(): { home: string; shared: string; b: string } {
    const home = path.join(root, 'store');
    const user = path.join(root, 'userhome');
    const shared = path.join(user, 'shared');
    const a = path.join(root, 'a');
    const b = path.join(root, 'b');
    for (const d of [shared, a, b, path.join(user, '.ssh')]) mkdirSync(d, { recursive: true });
    storeConfig(home, a, '');
    const what = `the read-write mount ~/shared -> /shared of a box of ${a}`;
    writeFileSync(
      path.join(home, 'launched-trees.json'),
      renderTreesRecord([a, shared].map((p) => ({ path: p, project: projectIdFor(a), what }))),
    );
    return { home, shared, b };
  }

  it('a mount of project b through a link planted there is refused by status and dockerfile, naming the link and both declarations', () => {
    const { home, shared, b } = launchedShared();
    symlinkSync(path.join(root, 'userhome', '.ssh'), path.join(shared, 'keys'));
    storeConfig(home, b, `[[mounts]]\nhost = "~/shared/keys"\ntarget = "/keys"\n`);
    for (const verb of ['status', 'dockerfile']) {
      const r = byre(BIN, b, home, [verb]);
      expect(r.status, verb).toBe(3);
      expect(r.stderr, verb).toMatch(
        /byre\.config:2:1 \(key mounts\[0\]\.host\): the mount ~\/shared\/keys -> \/keys/,
      );
      expect(r.stderr, verb).toContain(`through the link ${path.join(shared, 'keys')} -> "`);
      expect(r.stderr, verb).toContain(
        `the read-write mount ~/shared -> /shared of a box of ${path.join(root, 'a')}`,
      );
    }
  });

  it('a docker there, first on PATH, is declined by status in project b and never run', () => {
    const { home, shared, b } = launchedShared();
    const ran = path.join(root, 'ran');
    writeFileSync(path.join(shared, 'docker'), `#!/bin/sh\necho docker >> ${ran}\nexit 1\n`, {
      mode: 0o755,
    });
    const status = byre(BIN, b, home, ['status'], {
      PATH: `${shared}:${path.join(root, 'no-engines')}`,
    });
    expect(status.stdout).toMatch(/declined to run docker/);
    expect(existsSync(ran)).toBe(false);
  });
});
