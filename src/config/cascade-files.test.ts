import { describe, expect, it } from 'vitest';

import { fakeConfig } from '../../test/support/config.js';
import { cascadeFiles } from './cascade-files.js';
import type { LayerRef } from './types.js';

const PATHS = { default: '/h/default.config', project: '/h/projects/p-1a2b3c/byre.config' };

describe('cascadeFiles', () => {
  it('always names default.config and the project file, present or not', () => {
    expect(cascadeFiles(fakeConfig({ layers: [] }), PATHS)).toEqual([
      { kind: 'default', name: 'default', path: PATHS.default, present: false },
      { kind: 'project', name: 'project', path: PATHS.project, present: false },
    ]);
  });

  it('lists the template and the layers that took part, lowest first', () => {
    const layers: LayerRef[] = [
      { kind: 'core', name: 'core', path: null },
      { kind: 'default', name: 'default', path: PATHS.default },
      { kind: 'template', name: 'byre/node', path: null },
      { kind: 'layer', name: 'corp', path: '/h/layers/corp/layer.config' },
      { kind: 'layer', name: 'team', path: '/h/layers/team/layer.config' },
      { kind: 'project', name: 'project', path: PATHS.project },
    ];
    expect(cascadeFiles(fakeConfig({ layers }), PATHS)).toEqual([
      { kind: 'default', name: 'default', path: PATHS.default, present: true },
      { kind: 'template', name: 'byre/node', path: null, present: true },
      { kind: 'layer', name: 'corp', path: '/h/layers/corp/layer.config', present: true },
      { kind: 'layer', name: 'team', path: '/h/layers/team/layer.config', present: true },
      { kind: 'project', name: 'project', path: PATHS.project, present: true },
    ]);
  });
});
