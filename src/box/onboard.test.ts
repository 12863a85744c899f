import { readFileSync, statSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp.js';
import { UsageError } from '../errors.js';
import type { ProjectContext } from '../project/context.js';
import { projectStorePaths, storePaths } from '../project/store-layout.js';
import { EMPTY_CATALOG } from '../skills/resolve.js';
import { onboard, onboardingConfig } from './onboard.js';

const temp = useTempDir('onboard');
let ctx: ProjectContext;
const lookups = {
  bundledTemplate: (n: string) => (n === 'node' ? {} : null),
  catalog: EMPTY_CATALOG,
};

beforeEach(() => {
  const home = temp.path;
  const project = projectStorePaths(home, 'demo-work-0877d7');
  ctx = {
    store: storePaths(home),
    project,
    projectId: 'demo-work-0877d7',
    worktreeId: 'demo-work-0877d7',
    projectRoot: '/src/demo/work',
    worktreeDir: '/src/demo/work',
    isLinkedWorktree: false,
    commonGitDir: null,
    gitPaths: null,
    boxWritableRoots: [],
  };
});

const HEADER = [
  '# byre project config for /src/demo/work',
  '# The consent document for this project’s boxes: everything they may reach is',
  '# granted here or in the layers below it (`byre status` shows the result).',
];

describe('onboardingConfig', () => {
  it.each([
    [{}, HEADER],
    [{ template: 'node' }, [...HEADER, 'template = "node"']],
    [{ template: 'none', agent: 'none' }, [...HEADER, 'template = "none"', 'agent = "none"']],
  ])('%j', (flags, lines) => {
    expect(onboardingConfig('/src/demo/work', flags)).toBe(`${lines.join('\n')}\n`);
  });

  it('keeps a line break in the path out of the comment', () => {
    expect(onboardingConfig('/a\nb = 1', {}).split('\n')[0]).toBe(
      '# byre project config for /a?b = 1',
    );
  });
});

describe('onboard', () => {
  it('writes the consent document through the config writer, mode 0600', async () => {
    expect(await onboard(ctx, { template: 'node' }, lookups)).toBe(true);
    expect(readFileSync(ctx.project.config, 'utf8')).toBe(
      `${[...HEADER, 'template = "node"'].join('\n')}\n`,
    );
    expect(statSync(ctx.project.config).mode & 0o777).toBe(0o600);
  });

  it('leaves a configured project alone, and refuses first-run flags there', async () => {
    await onboard(ctx, {}, lookups);
    const before = readFileSync(ctx.project.config, 'utf8');
    expect(await onboard(ctx, {}, lookups)).toBe(false);
    await expect(onboard(ctx, { agent: 'none' }, lookups)).rejects.toBeInstanceOf(UsageError);
    expect(readFileSync(ctx.project.config, 'utf8')).toBe(before);
  });
});
