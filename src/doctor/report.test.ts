import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

import { doctorDataSchema } from './data-schema.js';
import { configFinding, hostUserFinding } from './findings.js';
import { doctorDataJsonSchema, renderDoctorData, renderDoctorText } from './report.js';

type DoctorReport = Parameters<typeof renderDoctorText>[0];

const GOLDEN = new URL('../../test/golden/doctor-data.schema.json', import.meta.url);

const report: DoctorReport = {
  workdir: '/w/app',
  projectId: 'app-w-1a2b3c',
  findings: [
    hostUserFinding(1000, 1000, {}),
    {
      id: 'tool.git',
      subject: 'git',
      verdict: 'warn',
      found: 'odd\u001b[31mname',
      fix: 'install git',
    },
  ],
  leftovers: {
    leftovers: [
      {
        engine: 'podman',
        kind: 'volume',
        id: 'byre-old-x-111111-\u001b]0;pwned\u0007',
        tags: [],
        project: 'old-x-111111',
        reason: 'path_gone',
        recordedPath: '/old',
        running: false,
      },
    ],
    folders: [
      { project: 'old-y-222222', dir: '/s/projects/old-y-222222', recordedPath: '/old\u001b[2J' },
    ],
    otherStore: 1,
    unattributed: 0,
    unreached: [],
  },
};

describe('byre doctor --data', () => {
  it('the generated JSON Schema matches the pinned golden (UPDATE_GOLDEN=1 rewrites it)', () => {
    const schema = doctorDataJsonSchema();
    if (process.env['UPDATE_GOLDEN'] === '1') writeFileSync(GOLDEN, schema);
    expect(schema).toBe(readFileSync(GOLDEN, 'utf8'));
  });

  it('emits version 1 JSON that parses back through the schema', () => {
    const data = doctorDataSchema.parse(JSON.parse(renderDoctorData(report)));
    expect(data).toMatchObject({
      version: 1,
      usable: true,
      project_id: 'app-w-1a2b3c',
      left_alone: { other_store: 1, unattributed: 0 },
    });
    expect(data.leftovers[0]).toMatchObject({
      kind: 'volume',
      reason: 'path_gone',
      recorded_path: '/old',
    });
    expect(data.store_folders).toEqual([
      { project: 'old-y-222222', path: '/s/projects/old-y-222222', recorded_path: '/old\u001b[2J' },
    ]);
    expect(data.checks.map((c) => c.id)).toEqual(['host.user', 'tool.git']);
  });

  it('says not usable when a check failed', () => {
    const failing = { ...report, findings: [configFinding({ message: 'bad', fix: null })] };
    expect(JSON.parse(renderDoctorData(failing))).toMatchObject({ usable: false });
  });
});

describe('byre doctor (text)', () => {
  it('aligns the lines, puts each fix under its line, and escapes what it did not write', () => {
    const text = renderDoctorText(report);
    expect(text).toContain('ok    host user  uid 1000, gid 1000\n');
    expect(text).toContain(
      'warn  git        odd\\x1b[31mname\n                 fix: install git\n',
    );
    expect(text).toContain('byre-old-x-111111-\\x1b]0;pwned\\x07');
    expect(text).toContain(
      '  store folder /s/projects/old-y-222222  (project old-y-222222: its directory /old\\x1b[2J is gone)\n',
    );
    expect(text).not.toMatch(/\u001b/);
    expect(text.trimEnd().split('\n').pop()).toBe('byre is usable here (1 warning).');
  });

  it('ends with the failures when byre is not usable', () => {
    const text = renderDoctorText({
      ...report,
      findings: [configFinding({ message: 'bad', fix: null })],
    });
    expect(text).toContain('FAIL  config  bad\n');
    expect(text.trimEnd().split('\n').pop()).toBe(
      'byre is NOT usable here: 1 check failed (FAIL above).',
    );
  });
});
