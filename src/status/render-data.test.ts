import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

import { fakeConfig } from '../gen/test-fixtures.js';
import { statusDataSchema } from './data-schema.js';
import { statusModel } from './model.js';
import { renderStatusData, statusDataJsonSchema } from './render-data.js';

const GOLDEN = new URL('../../test/golden/status-data.schema.json', import.meta.url);

describe('status --data', () => {
  it('the generated JSON Schema matches the pinned golden (UPDATE_GOLDEN=1 rewrites it)', () => {
    const schema = statusDataJsonSchema();
    if (process.env['UPDATE_GOLDEN'] === '1') writeFileSync(GOLDEN, schema);
    expect(schema).toBe(readFileSync(GOLDEN, 'utf8'));
  });

  it('emits version 2 JSON that parses back through the schema', () => {
    const model = statusModel({
      project: {
        projectId: 'app-1a2b3c',
        worktreeId: 'app-1a2b3c',
        projectRoot: '/p',
        worktreeDir: '/p',
        isLinkedWorktree: false,
        commonGitDir: null,
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
    const parsed = statusDataSchema.parse(json);
    expect(parsed.version).toBe(2);
    expect(parsed.subject).toBe('next_launch');
    expect(parsed.engine).toMatchObject({ name: null, error: 'no container engine found' });
    expect(parsed.launch.state).toBe('none');
  });
});
