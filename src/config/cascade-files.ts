// Which files make up one directory's cascade, lowest first: default.config
// and the project's byre.config always (present or not, so a user learns
// where to write), the template and the named layers when they took part.
// Pure: the merged config says which layers took part.

import type { EffectiveConfig, LayerKind } from './types.js';

export interface CascadeFile {
  kind: Exclude<LayerKind, 'core'>;
  /** `default`, the template id, the layer name, or `project`. */
  name: string;
  /** null for a template that ships inside byre or a package (no file of the user's). */
  path: string | null;
  /** False for default.config or byre.config that does not exist (yet). */
  present: boolean;
}

export function cascadeFiles(
  config: EffectiveConfig,
  paths: { default: string; project: string },
): CascadeFile[] {
  const took = (kind: LayerKind) => config.layers.filter((l) => l.kind === kind);
  const fixed = (kind: 'default' | 'project', path: string): CascadeFile => ({
    kind,
    name: kind,
    path,
    present: took(kind).length > 0,
  });
  return [
    fixed('default', paths.default),
    ...took('template').map((l) => ({
      kind: 'template' as const,
      name: l.name,
      path: l.path,
      present: true,
    })),
    ...took('layer').map((l) => ({
      kind: 'layer' as const,
      name: l.name,
      path: l.path,
      present: true,
    })),
    fixed('project', paths.project),
  ];
}
