// docs/SKILLS.md's worked example for keeping a template's packages and
// volumes on another base (an offline machine, a private mirror), run as
// written through the built binary: the doc's commands and files, then what
// `byre dockerfile` and `byre status` say about the result.

import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectIdFor } from '../../src/project/identity.js';
import { BYRE_BIN, runBin } from '../support/cli.js';
import { useTempDir } from '../support/temp.js';

const SECTION = '## A template on another base (an offline machine, a private mirror)';

/** The fenced blocks of one section of a doc, in order, with their language. */
function blocks(doc: string, heading: string): { lang: string; body: string }[] {
  const start = doc.indexOf(`${heading}\n`);
  if (start < 0) throw new Error(`no section ${heading}`);
  const rest = doc.slice(start + heading.length);
  const next = rest.search(/\n## /);
  const section = next < 0 ? rest : rest.slice(0, next);
  return [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({
    lang: m[1] ?? '',
    body: m[2] ?? '',
  }));
}

let root: string;
useTempDir('cli-template-base', (tmp) => {
  root = tmp;
});

describe('docs/SKILLS.md: a template on another base', () => {
  it('the worked example keeps the template’s volume on the mirror’s base, apt on the mirror', () => {
    const home = path.join(root, 'home');
    const project = path.join(root, 'work', 'app');
    const bin = path.join(root, 'bin');
    mkdirSync(project, { recursive: true });
    mkdirSync(bin);
    symlinkSync(BYRE_BIN, path.join(bin, 'byre'));
    const env = { HOME: home, PATH: `${bin}:/usr/bin:/bin`, BYRE_ALLOW_ROOT: '1' };
    const found = blocks(readFileSync('docs/SKILLS.md', 'utf8'), SECTION);
    expect(found.map((b) => b.lang)).toEqual(['sh', 'toml', 'toml']);

    // The commands as the doc gives them, in a shell, in the project.
    execFileSync('sh', ['-ec', found[0]?.body ?? ''], { cwd: project, env, stdio: 'pipe' });
    // Each file at the path its first line names.
    for (const b of found.slice(1)) {
      const named = /^# (\S+)\n/.exec(b.body)?.[1] ?? '';
      const file = named.replace(/^~/, home).replace('<id>', projectIdFor(project));
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, b.body);
    }

    const where = { cwd: project, home: path.join(home, '.byre'), env, inherit: false };
    const docker = runBin(['dockerfile'], where);
    expect(docker.status, docker.stderr).toBe(0);
    const lines = docker.stdout.split('\n');
    expect(lines[1]).toBe('FROM registry.internal:5000/library/node:22-bookworm');
    const sed = lines.findIndex((l) =>
      l.startsWith("RUN sed -i 's#http://deb.debian.org#http://apt.internal#g'"),
    );
    const core = lines.indexOf('# --- byre core block (constant) ---');
    expect(sed).toBeGreaterThan(0);
    expect(sed).toBeLessThan(core);

    const status = runBin(['status', '--data'], where);
    const data = JSON.parse(status.stdout) as {
      template: { id: string; source: string };
      volumes: { name: string; target: string; source: string }[];
    };
    expect(data.template).toMatchObject({ id: 'mirror-node', source: 'project' });
    expect(data.volumes).toContainEqual(
      expect.objectContaining({
        name: 'node_modules',
        target: '/workspace/node_modules',
        source: 'template mirror-node',
      }),
    );
  });
});
