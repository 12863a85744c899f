// Engine tier for adr/0040: docker's `ps` and `container inspect` asked over
// the daemon's socket give exactly the rows the docker CLI gives, against a
// real labelled box (running) and a created one, as root and as the test
// user in the docker group. The questions run in a bun child (as that user)
// through byre's own engine code; see docker-api-probe.ts.

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { flavorsUnderTest } from './engines.js';

const flavors = flavorsUnderTest().filter((f) => f.engine === 'docker');
const BUN = resolve('node_modules/.bin/bun');
const PROBE = resolve('test/engine/docker-api-probe.ts');

/** Values a hostile process could put in a label: control bytes, markup, non-ASCII. */
const ODD = 'w\ttab\nnl \u001b[31mred\u001b[0m <b>&amp;</b> \u2028 ünï 🚀 "q" \\ end';

const docker = (args: string[]): string =>
  execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

function homeOf(user: string): string {
  return execFileSync('getent', ['passwd', user], { encoding: 'utf8' }).trim().split(':')[5] ?? '/';
}

describe.skipIf(flavors.length === 0)('docker API answers equal the CLI', () => {
  const project = `byretest-api-${randomBytes(4).toString('hex')}`;
  const made: string[] = [];

  beforeAll(() => {
    const common = [
      '--label',
      'byre.test=1',
      '--label',
      `byre.project=${project}`,
      '--label',
      `byre.workdir=${ODD}`,
      '--label',
      'byre.uid=1000',
    ];
    made.push(
      docker([
        'run',
        '-d',
        ...common,
        '--label',
        'byre.launch=',
        'debian:bookworm',
        'sleep',
        '600',
      ]),
      docker(['create', ...common, '--label', 'byre.client=1', 'debian:bookworm', 'true']),
    );
  });

  afterAll(() => {
    if (made.length > 0) docker(['rm', '-f', ...made]);
    expect(docker(['ps', '-aq', '--filter', `label=byre.project=${project}`])).toBe('');
  });

  it.each(flavors)('$label', (flavor) => {
    const argv = [PROBE, project, ...made];
    const out =
      flavor.user === null
        ? execFileSync(BUN, argv, { encoding: 'utf8' })
        : execFileSync(
            'runuser',
            ['-u', flavor.user, '--', 'env', `HOME=${homeOf(flavor.user)}`, BUN, ...argv],
            { encoding: 'utf8' },
          );
    const { route, falseRoute, api, cli } = JSON.parse(out) as {
      route: { kind: string };
      falseRoute: { kind: string };
      api: Record<string, unknown[]>;
      cli: Record<string, unknown[]>;
    };
    expect(route.kind).toBe('socket');
    expect(falseRoute.kind).toBe('socket');
    expect(api).toEqual(cli);
    const [running, created] = made;
    expect(api['running']).toEqual([
      { id: running, labels: { 'byre.workdir': ODD, 'byre.uid': '1000' } },
    ]);
    expect(api['all']).toHaveLength(2);
    expect(api['has']).toHaveLength(2);
    expect(api['ids']).toEqual(expect.arrayContaining([running, created]));
    expect(api['inspect']).toMatchObject([
      { id: running, running: true, labels: { 'byre.workdir': ODD, 'byre.launch': '' } },
      { id: created, running: false, labels: { 'byre.client': '1' } },
    ]);
  });
});
