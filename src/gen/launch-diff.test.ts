import { describe, expect, it } from 'vitest';

import { launchChanges } from './launch-diff.js';
import type { LaunchRecord } from './launch-record.js';
import { sampleRecord } from '../../test/support/launch-record.js';

type Edit = (r: LaunchRecord) => LaunchRecord;

describe('launchChanges', () => {
  it('is empty for identical records', () => {
    expect(launchChanges(sampleRecord(), sampleRecord())).toEqual([]);
  });

  it('ignores what Next launch does not show (created, version, digest, env keys, order of binds)', () => {
    const r = sampleRecord();
    const next: LaunchRecord = {
      ...r,
      created: '2030-01-01T00:00:00Z',
      byre: '9.9.9',
      image: { ...r.image, digest: 'sha256:other', tag: 'other' },
      binds: [...r.binds].reverse(),
    };
    expect(launchChanges(r, next)).toEqual([]);
  });

  it.each<[string, Edit, string[]]>([
    [
      'a bind added',
      (r) => ({
        ...r,
        binds: [...r.binds, { host: '/home/ada/.ssh', target: '/home/dev/.ssh', mode: 'ro' }],
      }),
      ['+ bind /home/ada/.ssh -> /home/dev/.ssh (ro)'],
    ],
    [
      'a bind removed',
      (r) => ({ ...r, binds: r.binds.slice(0, 1) }),
      ['- bind /home/ada/.gitconfig -> /home/dev/.gitconfig (ro)'],
    ],
    [
      'a bind mode changed',
      (r) => ({ ...r, binds: [r.binds[0]!, { ...r.binds[1]!, mode: 'rw' }] }),
      [
        '- bind /home/ada/.gitconfig -> /home/dev/.gitconfig (ro)',
        '+ bind /home/ada/.gitconfig -> /home/dev/.gitconfig (rw)',
      ],
    ],
    [
      'a port moved',
      (r) => ({ ...r, ports: [{ interface: '0.0.0.0', host: 8080, container: 3000 }] }),
      ['- port 127.0.0.1:3000 -> 3000', '+ port 0.0.0.0:8080 -> 3000'],
    ],
    [
      'a volume became exclusive',
      (r) => ({ ...r, volumes: [{ ...r.volumes[0]!, sharing: 'exclusive' }] }),
      [
        '- volume claude -> /home/dev/.claude (state, project, shared)',
        '+ volume claude -> /home/dev/.claude (state, project, exclusive)',
      ],
    ],
    [
      'posture opened',
      (r) => ({ ...r, network: { ...r.network, posture: 'open', postureSkill: '', egress: [] } }),
      [
        '- posture deny-by-default (skill: byre/firewall)',
        '+ posture open',
        '- egress api.anthropic.com:443',
        '- egress github.com:443',
      ],
    ],
    [
      'an egress entry added',
      (r) => ({ ...r, network: { ...r.network, egress: [...r.network.egress, 'pypi.org:443'] } }),
      ['+ egress pypi.org:443'],
    ],
    [
      'a denied host added',
      (r) => ({ ...r, network: { ...r.network, egressDeny: ['evil.example'] } }),
      ['+ egress deny evil.example'],
    ],
    [
      'run_args changed, shown as whole argv',
      (r) => ({ ...r, runArgs: [...r.runArgs, '--label', 'a b'] }),
      [
        '- run_args --hostname byre --cap-add=SYS_PTRACE',
        "+ run_args --hostname byre --cap-add=SYS_PTRACE --label 'a b'",
      ],
    ],
    [
      'run_args reordered',
      (r) => ({ ...r, runArgs: ['byre', '--hostname', '--cap-add=SYS_PTRACE'] }),
      [
        '- run_args --hostname byre --cap-add=SYS_PTRACE',
        '+ run_args byre --hostname --cap-add=SYS_PTRACE',
      ],
    ],
    [
      'run_args dropped',
      (r) => ({ ...r, runArgs: [] }),
      ['- run_args --hostname byre --cap-add=SYS_PTRACE'],
    ],
    [
      'run_args quoting keeps argv boundaries',
      (r) => ({ ...r, runArgs: ["it's", ''] }),
      ['- run_args --hostname byre --cap-add=SYS_PTRACE', `+ run_args 'it'\\''s' ''`],
    ],
    [
      'a skill added and one removed',
      (r) => ({ ...r, skills: [r.skills[0]!, { name: 'ada/devlog', provenance: 'installed' }] }),
      ['- skill byre/firewall (bundled)', '+ skill ada/devlog (installed)'],
    ],
    [
      'the base changed',
      (r) => ({ ...r, image: { ...r.image, base: 'node:24' } }),
      ['- base node:22', '+ base node:24'],
    ],
  ])('%s', (_name, edit, expected) => {
    expect(launchChanges(sampleRecord(), edit(sampleRecord()))).toEqual(expected);
  });

  it('orders sections binds, ports, volumes, posture, egress, run_args, skills, base', () => {
    const r = sampleRecord();
    const next: LaunchRecord = {
      ...r,
      image: { ...r.image, base: 'debian:bookworm' },
      skills: [],
      runArgs: [],
      network: { ...r.network, posture: 'open', postureSkill: '', egress: [] },
      volumes: [],
      ports: [],
      binds: [],
    };
    const kinds = launchChanges(r, next).map((line) => line.split(' ')[1]);
    expect([...new Set(kinds)]).toEqual([
      'bind',
      'port',
      'volume',
      'posture',
      'egress',
      'run_args',
      'skill',
      'base',
    ]);
  });
});

describe('credential changes', () => {
  it('lists credential keys added and removed', () => {
    const record = { ...sampleRecord(), credentialKeys: ['A', 'B'] };
    const next = { ...sampleRecord(), credentialKeys: ['B', 'C'] };
    expect(launchChanges(record, next)).toEqual(['- credential A', '+ credential C']);
  });
});
