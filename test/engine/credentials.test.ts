// Encrypted env_from_host rows on real engines (adr/0012), through the built
// binary: a wrong passphrase creates nothing; the right one delivers the
// planted values over the credential channel, where the agent process sees
// them, and nowhere else: not the image history, the launch record, inspect,
// any host process's command line during the launch, byre's output or the
// store. One project and one box per flavour (root docker and podman, and
// rootless podman, whose keep-id ownership is the point); the tests of a
// flavour run in order and share them.

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

import { createIdentity, sealValue } from '../../src/credentials/seal.js';
import { flavorsUnderTest } from './engines.js';
import {
  engineCli,
  installTestAgent,
  runByre,
  runningBox,
  testScope,
  waitFor,
  type BackgroundSession,
  type TestProject,
} from './harness.js';

const flavors = flavorsUnderTest().filter((f) => f.user === null || f.engine === 'podman');
const scope = testScope('all');

const PASSPHRASE = 'correct horse battery staple';
const SECRET = `byre-planted-${randomBytes(8).toString('hex')}`;
const FILE_SECRET = `{"planted":"${randomBytes(8).toString('hex')}"}\n`;
const forms = (value: string): string[] => [value, Buffer.from(value).toString('base64')];
const PLANTED = [...forms(SECRET), ...forms(FILE_SECRET), FILE_SECRET.trim()];

function expectClean(what: string, text: string): void {
  for (const form of PLANTED) {
    if (text.includes(form)) throw new Error(`${what} contains a planted credential value`);
  }
}

async function credentialConfig(): Promise<string> {
  // A low scrypt work factor keeps the tier fast; the format is the same.
  const { table, identity } = await createIdentity(PASSPHRASE, 10);
  const env = await sealValue(
    identity.recipient,
    'encrypted',
    'API_KEY',
    new TextEncoder().encode(SECRET),
  );
  const file = await sealValue(
    identity.recipient,
    'encrypted-file',
    'SERVICE_JSON',
    new TextEncoder().encode(FILE_SECRET),
  );
  return [
    'agent = "testagent"',
    '',
    '[env_from_host]',
    `API_KEY = "${env}"`,
    `SERVICE_JSON = "${file}"`,
    '',
    '[credentials]',
    `recipient = "${table.recipient}"`,
    `identity = "${table.identity}"`,
    '',
  ].join('\n');
}

function lines(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

/** Every engine object the project owns. */
function projectObjects(project: TestProject): string[] {
  return [
    ...lines(engineCli(project, ['ps', '-aq', '--filter', `label=byre.project=${project.id}`])),
    ...lines(engineCli(project, ['images', '--format', '{{.Repository}}:{{.Tag}}'])).filter((i) =>
      i.includes(project.id),
    ),
    ...lines(engineCli(project, ['volume', 'ls', '-q'])).filter((v) => v.includes(project.id)),
  ];
}

// The sampler runs in its own process: the test's engine calls block this one.
// It reads the values to look for on stdin, never from its own argv.
const SAMPLER = `
const fs = require('node:fs');
let needles = [];
let leaks = new Set();
let sawReceiver = false;
let input = '';
process.stdin.on('data', (d) => (input += d));
process.stdin.on('end', () => {
  needles = JSON.parse(input).map((n) => Buffer.from(n));
  process.stdout.write('ready\\n');
  const round = () => {
    for (const pid of fs.readdirSync('/proc')) {
      if (!/^[0-9]+$/.test(pid) || Number(pid) === process.pid) continue;
      let c;
      try { c = fs.readFileSync('/proc/' + pid + '/cmdline'); } catch { continue; }
      if (c.includes('byre-credentials')) sawReceiver = true;
      if (needles.some((n) => c.includes(n))) leaks.add(pid + ' ' + c.toString().slice(0, 80));
    }
    setImmediate(round);
  };
  round();
});
process.on('SIGTERM', () => {
  process.stdout.write(JSON.stringify({ leaks: [...leaks], sawReceiver }) + '\\n');
  process.exit(0);
});
`;

/** Every host process command line that carries a planted value, sampled until stopped. */
async function sampleCmdlines(): Promise<{
  stop(): Promise<{ leaks: string[]; sawReceiver: boolean }>;
}> {
  const child = spawn(process.execPath, ['-e', SAMPLER], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stdin.end(JSON.stringify(PLANTED));
  await waitFor('the sampler', () => (out.startsWith('ready') ? true : null), 10_000);
  return {
    async stop() {
      const closed = new Promise((r) => child.on('close', r));
      child.kill('SIGTERM');
      await closed;
      return JSON.parse(out.split('\n')[1] ?? '{}') as { leaks: string[]; sawReceiver: boolean };
    },
  };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return filesUnder(p);
    return e.isFile() ? [p] : [];
  });
}

describe.skipIf(flavors.length === 0).each(flavors)('credentials on $label', (flavor) => {
  let project: TestProject;
  let session: BackgroundSession | null = null;
  let box = '';

  beforeAll(async () => {
    project = scope.project(flavor);
    installTestAgent(project);
    project.writeConfig(await credentialConfig());
  });

  it('a wrong passphrase fails before any container, volume or image exists', () => {
    const r = runByre(project, ['develop', '--passphrase-fd', '3'], { fd3: 'wrong\n' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('the passphrase does not open this identity');
    expect(r.stderr).toContain('credentials.identity');
    expect(projectObjects(project)).toEqual([]);
  });

  it('dockerrun says credentials are not carried, and carries no value', () => {
    const r = runByre(project, ['dockerrun']);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('credentials (API_KEY, SERVICE_JSON) are not carried');
    expect(r.stdout).toContain('--tmpfs /run/byre/credentials:');
    expectClean('dockerrun', r.stdout + r.stderr);
  });

  it('delivers over the channel: no host command line ever carries a value', async () => {
    const sampler = await sampleCmdlines();
    session = scope.start(project, ['develop', '--passphrase-fd', '3'], {
      fd3: `${PASSPHRASE}\n`,
    });
    try {
      box = await waitFor('the box', () => runningBox(project), 500_000);
      // Delivered once the agent process (the box's PID 1) carries the key.
      await waitFor('the agent to hold its credentials', () => {
        try {
          const env = engineCli(project, ['exec', box, 'cat', '/proc/1/environ']);
          return env.includes('SERVICE_JSON=') ? true : null;
        } catch {
          return null;
        }
      });
    } finally {
      const { leaks, sawReceiver } = await sampler.stop();
      expect(leaks).toEqual([]);
      // The sampler ran while the receiver did, so the check above can fail.
      expect(sawReceiver).toBe(true);
    }
  });

  it('the agent process sees the values; the file is 0600, the box user’s, on a tmpfs', () => {
    const environ = engineCli(project, ['exec', box, 'cat', '/proc/1/environ']).split('\0');
    expect(environ).toContain(`API_KEY=${SECRET}`);
    expect(environ).toContain('SERVICE_JSON=/run/byre/credentials/file/SERVICE_JSON');
    const probe = engineCli(project, [
      'exec',
      box,
      'sh',
      '-c',
      'stat -c "%a %u" /run/byre/credentials/file/SERVICE_JSON; id -u; grep " /run/byre/credentials " /proc/mounts; cat /run/byre/credentials/file/SERVICE_JSON',
    ]).split('\n');
    const [mode, owner] = (probe[0] ?? '').split(' ');
    expect(mode).toBe('600');
    expect(owner).toBe(probe[1]);
    expect(probe[2]).toMatch(/^tmpfs \/run\/byre\/credentials tmpfs .*\bnoexec\b/);
    expect(probe.slice(3).join('\n')).toBe(FILE_SECRET);
  });

  it('no value in inspect, the image, the launch record, the store or status', () => {
    expectClean('inspect', engineCli(project, ['inspect', box]));
    const image = lines(
      engineCli(project, ['images', '--format', '{{.Repository}}:{{.Tag}}']),
    ).find((i) => i.includes(project.id));
    expect(image).toBeDefined();
    expectClean('image history', engineCli(project, ['history', '--no-trunc', image ?? '']));
    expectClean('image inspect', engineCli(project, ['image', 'inspect', image ?? '']));

    const launches = path.join(project.store, 'launches');
    const records = readdirSync(launches).filter((f) => f.endsWith('.toml'));
    expect(records).toHaveLength(1);
    const record = readFileSync(path.join(launches, records[0] ?? ''), 'utf8');
    expect(record).toContain('credential_keys = ["API_KEY", "SERVICE_JSON"]');
    for (const file of filesUnder(project.home)) {
      if (statSync(file).size < 4 * 1024 * 1024) expectClean(file, readFileSync(file, 'latin1'));
    }

    const status = runByre(project, ['status']);
    expect(status.status).toBe(0);
    expect(status.stdout).toContain('API_KEY <- encrypted  (project; delivered)');
    expect(status.stdout).toContain('SERVICE_JSON <- encrypted-file  (project; delivered)');
    expect(status.stdout).toContain('delivered to this box over the credential channel');
    const data = runByre(project, ['status', '--data']);
    expectClean('status', status.stdout + status.stderr + data.stdout + data.stderr);
  });

  it('byre’s own output never carries a value, through to the session’s end', async () => {
    const s = session;
    expect(s).not.toBeNull();
    const code = await s?.end();
    expect(code).toBe(0);
    expect(s?.stderr()).toContain('· 2 credentials');
    expectClean('byre output', (s?.stdout() ?? '') + (s?.stderr() ?? ''));
  });
});
