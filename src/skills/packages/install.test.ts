import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { useHttpsServer } from '../../../test/support/https.js';
import { fakeIo, type FakeIo } from '../../../test/support/io.js';
import { useTempDir } from '../../../test/support/temp.js';
import {
  packageInstallCommand,
  packagePackCommand,
  packageUninstallCommand,
} from '../../commands/package.js';
import { loadCatalog, type CatalogEntry } from '../catalog.js';
import { digestHex } from '../digest.js';
import {
  adoptPackage,
  forkPackage,
  initPackage,
  packPackage,
  syncBundledMirror,
} from './author.js';
import { fetchPackage } from './install.js';
import { packagesDir, readIndex } from './index-file.js';

let root: string;
let home: string;

/** A recording Io in the test project, with the store under the temp BYRE_HOME. */
function pkgIo(): FakeIo {
  return fakeIo({ cwd: root, env: { BYRE_HOME: home } });
}

/** A local skill under BYRE_HOME/skills/<id>/ with a tool and a context file. */
function writeSkill(id: string, extra = '', tool = '#!/bin/sh\necho tool\n'): string {
  const dir = path.join(home, 'skills', ...id.split('/'));
  mkdirSync(path.join(dir, 'bin'), { recursive: true });
  writeFileSync(
    path.join(dir, 'skill.toml'),
    `description = "demo"\n\n[package]\nid = "${id}"\nversion = "1.0.0"\nkind = "skill"\npackage_api = 1\n\n` +
      `[build]\nfiles = { "bin/tool" = "/usr/local/bin/tool" }\n\n[runtime]\negress = ["api.example.com"]\n\n` +
      `[context]\nfile = "context.md"\n${extra}`,
  );
  writeFileSync(path.join(dir, 'bin', 'tool'), tool);
  chmodSync(path.join(dir, 'bin', 'tool'), 0o755);
  writeFileSync(path.join(dir, 'context.md'), '# demo\n');
  return dir;
}

/** Pack a local skill into `<publish>/skill.toml` plus its payload, ready for a file install. */
function publish(id: string): { manifest: string; digest: string; dir: string } {
  const packed = packPackage(home, 'skill', id);
  const dir = mkdtempSync(path.join(root, 'publish-'));
  cpSync(path.join(home, 'skills', ...id.split('/')), dir, { recursive: true });
  writeFileSync(path.join(dir, 'dist.toml'), packed.text);
  return { manifest: path.join(dir, 'dist.toml'), digest: packed.digest, dir };
}

useTempDir('pkg', (tmp) => {
  root = tmp;
  home = path.join(root, 'home');
  mkdirSync(home);
});

describe('local packages', () => {
  it('resolve with staged payload, exec bits and context', () => {
    writeSkill('me/demo');
    const skill = loadCatalog({ home, kind: 'skill' }).asSkillCatalog().lookup('me/demo');
    expect(skill?.provenance).toBe('local');
    expect(skill?.build.files).toEqual([
      expect.objectContaining({
        staged: 'skills/me/demo/bin/tool',
        dest: '/usr/local/bin/tool',
        executable: true,
      }),
    ]);
    expect(skill?.context).toBe('# demo\n');
    expect(skill?.runtime.egress).toEqual(['api.example.com']);
  });

  it('a symlink leading out of the package is refused', () => {
    const dir = writeSkill('me/demo');
    writeFileSync(path.join(root, 'secret'), 'x');
    rmSync(path.join(dir, 'bin', 'tool'));
    symlinkSync(path.join(root, 'secret'), path.join(dir, 'bin', 'tool'));
    const catalog = loadCatalog({ home, kind: 'skill' });
    expect(catalog.find('me/demo')?.issues[0]?.rule).toBe('skill.payload-escapes');
    expect(() => catalog.asSkillCatalog().lookup('me/demo')).toThrow(
      expect.objectContaining({ rule: 'skill.payload-escapes' }),
    );
  });

  it('a missing payload file is INVALID, located at its key', () => {
    const dir = writeSkill('me/demo');
    rmSync(path.join(dir, 'context.md'));
    const entry = loadCatalog({ home, kind: 'skill' }).find('me/demo');
    expect(entry?.status).toBe('invalid');
    expect(entry?.issues[0]).toMatchObject({
      rule: 'skill.payload-missing',
      location: { key: 'context.file' },
    });
  });

  it('init scaffolds a valid skill; bundled names are reserved', async () => {
    const entry = await initPackage(home, 'skill', 'mine');
    expect(entry).toMatchObject({ provenance: 'local', status: 'ok', id: 'mine' });
    await expect(initPackage(home, 'skill', 'claude')).rejects.toMatchObject({
      rule: 'package.id-reserved',
    });
    await expect(initPackage(home, 'skill', 'mine')).rejects.toMatchObject({
      rule: 'package.exists',
    });
  });

  it('the bundled mirror is written once per version', async () => {
    expect(await syncBundledMirror(home, '9.9.9')).toBe(true);
    expect(readFileSync(path.join(home, 'bundled', '.byre-version'), 'utf8')).toBe('9.9.9\n');
    expect(existsSync(path.join(home, 'bundled', 'templates', 'node', 'template.config'))).toBe(
      true,
    );
    expect(await syncBundledMirror(home, '9.9.9')).toBe(false);
  });
});

describe('install from a file manifest', () => {
  it('pack then install reproduces the digest; the snapshot loads as installed', async () => {
    writeSkill('me/demo');
    const { manifest, digest } = publish('me/demo');
    rmSync(path.join(home, 'skills'), { recursive: true });
    const io = pkgIo();
    await packageInstallCommand(io, 'skill', manifest, { digest });
    expect(io.out).toBe(`${digest}\n`);
    expect(readIndex(home).entries).toEqual([
      expect.objectContaining({ id: 'me/demo', digest, kind: 'skill', version: '1.0.0' }),
    ]);
    expect(existsSync(path.join(packagesDir(home), digestHex(digest), 'bin', 'tool'))).toBe(true);
    const skill = loadCatalog({ home, kind: 'skill' }).asSkillCatalog().lookup('me/demo');
    expect(skill).toMatchObject({ provenance: 'installed', meta: { digest } });
    expect(skill?.build.files[0]?.executable).toBe(true);

    const again = pkgIo();
    await packageInstallCommand(again, 'skill', `file://${manifest}`, {});
    expect(again.err).toContain('already installed');
  });

  it('pack -o writes the manifest and prints a pinned install command', async () => {
    const dir = writeSkill('me/demo');
    const io = pkgIo();
    const out = path.join(dir, 'dist.toml');
    await packagePackCommand(io, 'skill', 'me/demo', { out });
    const digest = io.out.trim();
    expect(io.err).toContain(`byre skill install file://${out} --digest ${digest}`);
    // The manifest itself is not part of its own payload.
    expect(readFileSync(out, 'utf8')).not.toContain('dest = "dist.toml"');
    const fetched = await fetchPackage(out, 'skill', { cwd: root });
    expect(fetched.digest).toBe(digest);
  });

  it('a tampered payload refuses to load', async () => {
    writeSkill('me/demo');
    const { manifest, digest } = publish('me/demo');
    rmSync(path.join(home, 'skills'), { recursive: true });
    await packageInstallCommand(pkgIo(), 'skill', manifest, {});
    writeFileSync(
      path.join(packagesDir(home), digestHex(digest), 'bin', 'tool'),
      '#!/bin/sh\nevil\n',
    );
    const catalog = loadCatalog({ home, kind: 'skill' });
    expect(catalog.find('me/demo')?.status).toBe('invalid');
    expect(() => catalog.asSkillCatalog().lookup('me/demo')).toThrow(
      expect.objectContaining({ rule: 'package.tampered' }),
    );
  });

  /** me/demo installed from a file with no local copy left; the path of its snapshot's manifest. */
  async function installedManifest(): Promise<string> {
    writeSkill('me/demo');
    const { manifest, digest } = publish('me/demo');
    rmSync(path.join(home, 'skills'), { recursive: true });
    await packageInstallCommand(pkgIo(), 'skill', manifest, {});
    return path.join(packagesDir(home), digestHex(digest), 'skill.toml');
  }

  const firstRule = (): string | undefined =>
    loadCatalog({ home, kind: 'skill' }).find('me/demo')?.issues[0]?.rule;

  it('a tampered manifest refuses to load', async () => {
    const file = await installedManifest();
    writeFileSync(file, readFileSync(file, 'utf8').replace('api.example.com', 'evil.example.com'));
    expect(firstRule()).toBe('package.tampered');
  });

  it('a snapshot manifest that is a FIFO or a link is tampered, never waited on or followed', async () => {
    const file = await installedManifest();
    const copy = path.join(root, 'manifest-copy.toml');
    writeFileSync(copy, readFileSync(file));
    rmSync(file);
    symlinkSync(copy, file);
    expect(firstRule()).toBe('package.tampered');
    rmSync(file);
    execFileSync('mkfifo', [file]);
    expect(firstRule()).toBe('package.tampered');
  });

  it('a digest mismatch installs nothing', async () => {
    writeSkill('me/demo');
    const { manifest } = publish('me/demo');
    await expect(
      packageInstallCommand(pkgIo(), 'skill', manifest, { digest: `sha256:${'0'.repeat(64)}` }),
    ).rejects.toMatchObject({ rule: 'package.digest-mismatch' });
    expect(existsSync(packagesDir(home))).toBe(false);
  });

  it('a payload that changed after packing is refused', async () => {
    writeSkill('me/demo');
    const { manifest, dir } = publish('me/demo');
    writeFileSync(path.join(dir, 'context.md'), 'changed\n');
    await expect(fetchPackage(manifest, 'skill', { cwd: root })).rejects.toMatchObject({
      rule: 'package.payload-mismatch',
    });
  });

  it('http:// is refused', async () => {
    await expect(
      packageInstallCommand(pkgIo(), 'skill', 'http://example.com/skill.toml', {}),
    ).rejects.toMatchObject({
      rule: 'package.http-refused',
    });
  });

  it('too many payload files are refused', async () => {
    const dir = writeSkill('me/demo');
    for (let i = 0; i < 70; i++) writeFileSync(path.join(dir, `f${i}.txt`), `${i}`);
    expect(() => packPackage(home, 'skill', 'me/demo')).toThrow(
      expect.objectContaining({ rule: 'package.too-many-files' }),
    );
    // A hand-made manifest listing 65 files is refused at fetch.
    const entries = Array.from(
      { length: 65 },
      (_, i) =>
        `[[package.files]]\nsrc = "f${i}.txt"\ndest = "f${i}.txt"\nsha256 = "${'0'.repeat(64)}"\n`,
    ).join('\n');
    const manifest = path.join(root, 'many.toml');
    writeFileSync(manifest, `[package]\nid = "me/many"\nversion = "1.0.0"\n\n${entries}`);
    await expect(fetchPackage(manifest, 'skill', { cwd: root })).rejects.toMatchObject({
      rule: 'package.too-many-files',
    });
  });

  it('a package over the byte budget is refused', async () => {
    writeSkill('me/demo', '', `#!/bin/sh\n${'x'.repeat(4096)}\n`);
    const { manifest } = publish('me/demo');
    await expect(
      fetchPackage(manifest, 'skill', { cwd: root, fetch: { maxBytes: 2048 } }),
    ).rejects.toMatchObject({
      rule: 'package.too-large',
    });
  });

  it('a file manifest reached through a link is read; a FIFO payload is refused unwaited', async () => {
    writeSkill('me/demo');
    const { manifest, dir } = publish('me/demo');
    const link = path.join(dir, 'via-link.toml');
    symlinkSync(manifest, link);
    expect((await fetchPackage(link, 'skill', { cwd: root })).entry.status).toBe('ok');
    rmSync(path.join(dir, 'context.md'));
    execFileSync('mkfifo', [path.join(dir, 'context.md')]);
    await expect(fetchPackage(manifest, 'skill', { cwd: root })).rejects.toMatchObject({
      rule: 'package.fetch-failed',
    });
  });

  it('replacing an installed id needs confirmation; --yes replaces and drops the old snapshot', async () => {
    writeSkill('me/demo');
    const first = publish('me/demo');
    await packageInstallCommand(pkgIo(), 'skill', first.manifest, {});
    writeSkill('me/demo', '', '#!/bin/sh\necho v2\n');
    const second = publish('me/demo');
    expect(second.digest).not.toBe(first.digest);
    await expect(
      packageInstallCommand(pkgIo(), 'skill', second.manifest, {}),
    ).rejects.toMatchObject({
      rule: 'confirm.needs-yes',
    });
    const declined = pkgIo();
    await expect(
      packageInstallCommand(
        declined,
        'skill',
        second.manifest,
        {},
        { confirm: () => Promise.resolve(false) },
      ),
    ).rejects.toMatchObject({ rule: 'package.replace-declined' });
    expect(declined.err).toContain('What changes');
    expect(declined.err).toContain(
      `What changes:\n  - digest: ${first.digest}\n  - source: ${first.manifest}\n` +
        `  + digest: ${second.digest}\n  + source: ${second.manifest}\n`,
    );
    await packageInstallCommand(pkgIo(), 'skill', second.manifest, { yes: true });
    expect(readIndex(home).entries[0]?.digest).toBe(second.digest);
    expect(existsSync(path.join(packagesDir(home), digestHex(first.digest)))).toBe(false);
  });

  it('uninstall names the configs that reference the id', async () => {
    writeSkill('me/demo');
    const { manifest, digest } = publish('me/demo');
    await packageInstallCommand(pkgIo(), 'skill', manifest, {});
    const project = path.join(home, 'projects', 'demo-app-123abc');
    mkdirSync(project, { recursive: true });
    writeFileSync(path.join(project, 'byre.config'), 'skills = ["me/demo"]\n');
    await expect(packageUninstallCommand(pkgIo(), 'skill', 'me/demo', {})).rejects.toMatchObject({
      rule: 'confirm.needs-yes',
    });
    const io = pkgIo();
    await packageUninstallCommand(io, 'skill', 'me/demo', { yes: true });
    expect(io.err).toContain(
      `byre: me/demo is referenced by:\n  ${path.join(project, 'byre.config')} (skills)\n`,
    );
    expect(readIndex(home).entries).toEqual([]);
    expect(existsSync(path.join(packagesDir(home), digestHex(digest)))).toBe(false);
  });
});

describe('fork and adopt', () => {
  /** me/demo packed, its local copy gone, installed: the catalog's entry for it. */
  const installedDemo = async (): Promise<CatalogEntry | null> => {
    writeSkill('me/demo');
    const { manifest } = publish('me/demo');
    rmSync(path.join(home, 'skills'), { recursive: true });
    await packageInstallCommand(pkgIo(), 'skill', manifest, {});
    return loadCatalog({ home, kind: 'skill' }).find('me/demo');
  };

  it('round trip: fork an installed package, move the fork out, adopt it back', async () => {
    const installed = await installedDemo();

    const fork = await forkPackage(home, 'skill', 'me/demo', 'me/forked');
    expect(fork).toMatchObject({ provenance: 'local', status: 'ok', id: 'me/forked' });
    const text = readFileSync(path.join(fork.dir ?? '', 'skill.toml'), 'utf8');
    expect(text).toContain('id = "me/forked"');
    expect(text).not.toContain('[[package.files]]');
    expect(fork.skill?.build.files.map((f) => [f.dest, f.executable])).toEqual(
      installed?.skill?.build.files.map((f) => [f.dest, f.executable]),
    );

    const checkout = path.join(root, 'checkout');
    cpSync(fork.dir ?? '', checkout, { recursive: true });
    rmSync(fork.dir ?? '', { recursive: true });
    const adopted = await adoptPackage(home, 'skill', checkout);
    expect(adopted).toMatchObject({ provenance: 'local', status: 'ok', id: 'me/forked' });
    expect(adopted.skill?.context).toBe(fork.skill?.context);
    // The checkout is live: an edit shows on the next load.
    writeFileSync(path.join(checkout, 'context.md'), 'edited\n');
    expect(loadCatalog({ home, kind: 'skill' }).asSkillCatalog().lookup('me/forked')?.context).toBe(
      'edited\n',
    );
  });

  it('a local package shadows the installed one with the same id', async () => {
    writeSkill('me/demo');
    const { manifest } = publish('me/demo');
    await packageInstallCommand(pkgIo(), 'skill', manifest, {});
    const catalog = loadCatalog({ home, kind: 'skill' });
    expect(catalog.entries.find((e) => e.provenance === 'installed')?.status).toBe('shadowed');
    expect(catalog.asSkillCatalog().lookup('me/demo')?.provenance).toBe('local');
  });

  it('forking an installed package whose payload became a link out copies nothing through it', async () => {
    const installed = await installedDemo();
    const secret = path.join(root, 'secret');
    writeFileSync(secret, 'not for the fork\n');
    const context = path.join(installed?.dir ?? '', 'context.md');
    rmSync(context);
    symlinkSync(secret, context);
    await expect(forkPackage(home, 'skill', 'me/demo', 'me/forked')).rejects.toMatchObject({
      rule: 'package.file-unreadable',
    });
    expect(existsSync(path.join(home, 'skills', 'me', 'forked'))).toBe(false);
  });

  it('adopting a checkout whose manifest is a FIFO or a link is refused unread, no link left', async () => {
    const checkout = path.join(root, 'fifo');
    mkdirSync(checkout);
    execFileSync('mkfifo', [path.join(checkout, 'skill.toml')]);
    await expect(adoptPackage(home, 'skill', checkout)).rejects.toMatchObject({
      issues: [expect.objectContaining({ rule: 'config.not-file' })],
    });
    const linked = path.join(root, 'linked');
    mkdirSync(linked);
    writeFileSync(path.join(root, 'elsewhere.toml'), '[package]\nid = "me/linked"\n');
    symlinkSync(path.join(root, 'elsewhere.toml'), path.join(linked, 'skill.toml'));
    await expect(adoptPackage(home, 'skill', linked)).rejects.toMatchObject({
      issues: [expect.objectContaining({ rule: 'config.symlink' })],
    });
    expect(existsSync(path.join(home, 'skills'))).toBe(false);
  });

  it('adopting an invalid package rolls the link back', async () => {
    const checkout = path.join(root, 'bad');
    mkdirSync(checkout);
    writeFileSync(
      path.join(checkout, 'skill.toml'),
      '[package]\nid = "me/bad"\n\n[context]\nfile = "missing.md"\n',
    );
    await expect(adoptPackage(home, 'skill', checkout)).rejects.toMatchObject({
      rule: 'skill.payload-missing',
    });
    expect(readdirSync(path.join(home, 'skills', 'me'))).toEqual([]);
  });
});

describe('install over https', () => {
  let served: Record<string, Buffer>;
  let hits: string[];

  const server = useHttpsServer((req, res) => {
    const url = req.url ?? '/';
    hits.push(url);
    if (url.startsWith('/redirect/')) {
      res.writeHead(302, { location: url.slice('/redirect'.length) });
      res.end();
      return;
    }
    if (url === '/loop') {
      res.writeHead(302, { location: '/loop' });
      res.end();
      return;
    }
    const body = served[url];
    if (body === undefined) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200);
    res.end(body);
  });

  beforeEach(() => {
    served = {};
    hits = [];
  });

  function serve(id: string): string {
    const packed = packPackage(home, 'skill', id);
    const dir = path.join(home, 'skills', ...id.split('/'));
    served['/pkg/skill.toml'] = Buffer.from(packed.text);
    for (const f of packed.files) served[`/pkg/${f.src}`] = readFileSync(path.join(dir, f.src));
    return packed.digest;
  }

  it('installs from a server whose self-signed CA the fetcher was given', async () => {
    writeSkill('me/demo');
    const digest = serve('me/demo');
    rmSync(path.join(home, 'skills'), { recursive: true });
    const io = pkgIo();
    await packageInstallCommand(
      io,
      'skill',
      `${server.base}/redirect/pkg/skill.toml`,
      { digest },
      { fetch: { ca: server.ca } },
    );
    expect(io.out).toBe(`${digest}\n`);
    expect(hits).toContain('/pkg/bin/tool');
    expect(
      loadCatalog({ home, kind: 'skill' }).asSkillCatalog().lookup('me/demo')?.provenance,
    ).toBe('installed');
  });

  it('an untrusted certificate fails the fetch', async () => {
    writeSkill('me/demo');
    serve('me/demo');
    await expect(
      fetchPackage(`${server.base}/pkg/skill.toml`, 'skill', { cwd: root }),
    ).rejects.toMatchObject({
      rule: 'package.fetch-failed',
    });
  });

  it('more than five redirects are refused', async () => {
    await expect(
      fetchPackage(`${server.base}/loop`, 'skill', { cwd: root, fetch: { ca: server.ca } }),
    ).rejects.toMatchObject({
      rule: 'package.too-many-redirects',
    });
  });

  it('payload URLs off the manifest origin are refused', async () => {
    served['/pkg/skill.toml'] = Buffer.from(
      `[package]\nid = "me/x"\nversion = "1"\n\n[[package.files]]\nsrc = "https://elsewhere.example/x"\ndest = "x"\nsha256 = "${'0'.repeat(64)}"\n`,
    );
    await expect(
      fetchPackage(`${server.base}/pkg/skill.toml`, 'skill', {
        cwd: root,
        fetch: { ca: server.ca },
      }),
    ).rejects.toMatchObject({
      rule: 'package.payload-off-origin',
    });
  });
});
