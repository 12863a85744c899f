import { describe, expect, it } from 'vitest';

import { containerName, imageTag, LABEL, machineVolumeName, volumeEngineName } from './names.js';

/** A project-scoped volume declaration named `name`. */
const projectVolume = (name: string) =>
  ({ name, role: 'state', target: '/x', scope: 'project', sharing: 'shared' }) as const;

describe('engine names', () => {
  it('formats every engine object name', () => {
    expect(imageTag('byre-dev-0877d7', 1000, 1001)).toBe('byre-byre-dev-0877d7-u1000-g1001');
    expect(containerName('feature-repo-1a2b3c')).toBe('byre-feature-repo-1a2b3c');
    expect(volumeEngineName('x-1a2b3c', 501, projectVolume('.claude'))).toBe(
      'byre-x-1a2b3c-.claude',
    );
    expect(machineVolumeName(501, 'claude-auth')).toBe('byre-machine-u501-claude-auth');
  });

  it('spells the label keys', () => {
    expect([LABEL.project, LABEL.workdir, LABEL.client, LABEL.run, LABEL.launch]).toEqual([
      'byre.project',
      'byre.workdir',
      'byre.client',
      'byre.run',
      'byre.launch',
    ]);
  });
});
