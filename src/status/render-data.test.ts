import { describe, expect, it } from 'vitest';

import { fakeConfig } from '../../test/support/config.js';
import { expectGolden } from '../../test/support/golden.js';
import { statusDataSchema } from './data-schema.js';
import { statusModel } from './model.js';
import { renderStatusData, statusDataJsonSchema } from './render-data.js';

describe('status --data', () => {
  it('the generated JSON Schema matches the pinned golden (UPDATE_GOLDEN=1 rewrites it)', () => {
    expectGolden('status-data.schema.json', statusDataJsonSchema());
  });

  it('emits version 4 JSON that parses back through the schema', () => {
    const model = statusModel({
      project: {
        projectId: 'app-1a2b3c',
        worktreeId: 'app-1a2b3c',
        projectRoot: '/p',
        worktreeDir: '/p',
        isLinkedWorktree: false,
        commonGitDir: null,
        gitPaths: null,
        project: { config: '/h/.byre/projects/app-1a2b3c/byre.config' },
      },
      config: fakeConfig(),
      skills: [],
      skillError: null,
      engine: { kind: 'error', message: 'no container engine found' },
      hostEnv: [],
      hostUid: 1000,
      home: '/h',
      container: { state: 'not_running' },
      launch: null,
      siblings: [],
      siblingsError: null,
      nextLaunch: null,
    });
    const json: unknown = JSON.parse(renderStatusData(model));
    const parsed = statusDataSchema().parse(json);
    expect(parsed.version).toBe(4);
    expect(parsed.engine).not.toHaveProperty('rootless_error');
    expect(parsed.subject).toBe('next_launch');
    expect(parsed.engine).toMatchObject({ name: null, error: 'no container engine found' });
    expect(parsed.launch.state).toBe('none');
  });
});
