// `byre skill|template …`'s decision table against a temp store (no engine,
// no network: packages come from files): init → pack → install by file URI,
// the digest checks, a replacement reviewed and declined through the injected
// confirm, uninstall declined and done, and the not-found refusals.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { fakeIo, type FakeIo } from '../../test/support/io.js';
import { useTempDir } from '../../test/support/temp.js';

import {
  packageInitCommand,
  packageInspectCommand,
  packageInstallCommand,
  packagePackCommand,
  packageUninstallCommand,
  packageValidateCommand,
} from './package.js';
import { failure } from '../../test/support/failure.js';

interface World {
  tmp: string;
  home: string;
  io: FakeIo;
}

let w: World;

useTempDir('package-cmd', (tmp) => {
  const home = path.join(tmp, 'store');
  mkdirSync(path.join(tmp, 'user'));
  w = {
    tmp,
    home,
    io: fakeIo({ cwd: tmp, env: { BYRE_HOME: home, HOME: path.join(tmp, 'user') } }),
  };
});

/** A local skill packed to a manifest file; its id, manifest path and digest. */
async function packed(name = 'tool'): Promise<{ id: string; manifest: string; digest: string }> {
  const io = fakeIo({ cwd: w.tmp, env: w.io.env });
  await packageInitCommand(io, 'skill', name);
  const id = /local skill (\S+);/.exec(io.err)?.[1] ?? '';
  // Published beside the package's files (srcs are relative to it): its own directory.
  const manifest = path.join(io.out.trim(), 'packed.toml');
  const out = fakeIo({ cwd: w.tmp, env: w.io.env });
  await packagePackCommand(out, 'skill', id, { out: manifest });
  return { id, manifest, digest: out.out.trim() };
}

describe('byre skill install and uninstall', () => {
  it('installs a packed skill from its file, prints the digest; again is already installed', async () => {
    const p = await packed();
    await packageInstallCommand(w.io, 'skill', p.manifest, { digest: p.digest });
    expect(w.io.out).toBe(`${p.digest}\n`);
    expect(w.io.err).toMatch(new RegExp(`installed skill \\S+ .*\\(${p.digest}\\)`));
    expect(w.io.err).toContain('it is inert until a config enables it');
    await packageInstallCommand(w.io, 'skill', p.manifest, {});
    expect(w.io.err).toContain('already installed skill');
  });

  it('package.digest-invalid: a --digest that is not one, before anything is fetched', async () => {
    const error = await failure(
      packageInstallCommand(w.io, 'skill', '/nonexistent/skill.toml', { digest: 'sha256:ab' }),
    );
    expect(error.rule).toBe('package.digest-invalid');
  });

  it('a --digest that does not match what was fetched installs nothing', async () => {
    const p = await packed();
    const other = `sha256:${'0'.repeat(64)}`;
    const error = await failure(
      packageInstallCommand(w.io, 'skill', p.manifest, { digest: other }),
    );
    expect(error.message).toContain(other);
    const uninstall = await failure(packageUninstallCommand(w.io, 'skill', p.id, { yes: true }));
    expect(uninstall.rule).toBe('package.not-installed');
  });

  it('package.replace-declined: a changed package is reviewed, and a no keeps the old one', async () => {
    const p = await packed();
    await packageInstallCommand(w.io, 'skill', p.manifest, {});
    // The same manifest, changed: its description.
    writeFileSync(
      p.manifest,
      readFileSync(p.manifest, 'utf8').replace(/description = "[^"]*"/, 'description = "changed"'),
    );
    const asked: string[] = [];
    const error = await failure(
      packageInstallCommand(
        w.io,
        'skill',
        p.manifest,
        {},
        {
          confirm: async (q) => {
            asked.push(q);
            return false;
          },
        },
      ),
    );
    expect(error.rule).toBe('package.replace-declined');
    expect(asked).toHaveLength(1);
    expect(w.io.err).toContain('+ description: changed');
  });

  it('uninstall asks; a no keeps it (package.uninstall-declined), --yes removes it', async () => {
    const p = await packed();
    await packageInstallCommand(w.io, 'skill', p.manifest, {});
    const installed = /installed skill (\S+) /.exec(w.io.err)?.[1] ?? '';
    const error = await failure(
      packageUninstallCommand(w.io, 'skill', installed, {}, { confirm: async () => false }),
    );
    expect(error.rule).toBe('package.uninstall-declined');
    await packageUninstallCommand(w.io, 'skill', installed, { yes: true });
    expect(w.io.err).toContain(`uninstalled skill ${installed}`);
  });

  it('package.not-installed and package.not-found', async () => {
    expect(
      (await failure(packageUninstallCommand(w.io, 'skill', 'me/none', { yes: true }))).rule,
    ).toBe('package.not-installed');
    expect((await failure(packageInspectCommand(w.io, 'skill', 'me-none'))).rule).toBe(
      'package.not-found',
    );
    expect((await failure(packageValidateCommand(w.io, 'skill', 'me-none'))).rule).toBe(
      'package.not-found',
    );
  });
});
