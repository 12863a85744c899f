// A representative launch record for the launch/ and status unit tests.

import { envKeysOf } from '../../src/gen/launch-record.js';
import type { LaunchRecord } from '../../src/gen/launch-record.js';

export function sampleRecord(): LaunchRecord {
  return {
    record: 1,
    byre: '0.1.0',
    created: '2026-03-04T05:06:07Z',
    project: 'work-app-a1b2c3',
    workdir: '/home/ada/work/app',
    engine: 'docker',
    envKeys: envKeysOf({
      TERM: 'xterm-256color',
      GIT_AUTHOR_NAME: 'Ada',
      ANTHROPIC_API_KEY: 'sk-secret',
    }),
    runArgs: ['--hostname', 'byre', '--cap-add=SYS_PTRACE'],
    image: {
      tag: 'byre-work-app-a1b2c3-u1000-g1000',
      digest: 'sha256:0f0e0d0c0b0a09080706050403020100f0e0d0c0b0a090807060504030201000',
      base: 'node:22',
    },
    network: {
      posture: 'deny-by-default',
      postureSkill: 'byre/firewall',
      egress: ['api.anthropic.com:443', 'github.com:443'],
      egressDeny: [],
      reservedEnv: [{ skill: 'byre/firewall', key: 'HTTPS_PROXY' }],
      projectRunArgs: true,
      rawBuild: false,
    },
    binds: [
      { host: '/home/ada/work/app', target: '/workspace', mode: 'rw' },
      { host: '/home/ada/.gitconfig', target: '/home/dev/.gitconfig', mode: 'ro' },
    ],
    ports: [{ interface: '127.0.0.1', host: 3000, container: 3000 }],
    volumes: [
      {
        name: 'byre-work-app-a1b2c3-claude',
        target: '/home/dev/.claude',
        decl: 'claude',
        role: 'state',
        scope: 'project',
        sharing: 'shared',
      },
    ],
    skills: [
      { name: 'byre/claude', provenance: 'bundled' },
      { name: 'byre/firewall', provenance: 'bundled' },
    ],
  };
}
