// Which keys a file kind may not carry at all, whatever their value.

import type { LayerKind } from '../types.js';
import { finding, type Finding } from './finding.js';

interface Ban {
  key: string;
  kinds: readonly LayerKind[];
  why: string;
  fix: string;
}

const BANS: readonly Ban[] = [
  {
    key: 'template',
    kinds: ['layer'],
    why: 'shape selection belongs to the project config, not a shared layer',
    fix: 'remove template here and set it in the project config',
  },
  {
    key: 'template',
    kinds: ['template'],
    why: 'a template cannot select another template',
    fix: 'remove template from template.config',
  },
  {
    key: 'agent',
    kinds: ['template'],
    why: 'composition belongs in a preset or the project config, not a template',
    fix: 'remove agent from template.config',
  },
  {
    key: 'skills',
    kinds: ['template'],
    why: 'composition belongs in a preset or the project config, not a template',
    fix: 'remove skills from template.config',
  },
  {
    key: 'sources',
    kinds: ['template'],
    why: 'composition belongs in a preset or the project config, not a template',
    fix: 'remove [sources] from template.config',
  },
  {
    key: 'extends',
    kinds: ['template'],
    why: 'templates do not chain; named layers sit between the template and the project',
    fix: 'remove extends from template.config',
  },
  {
    key: 'credentials',
    kinds: ['template'],
    why: 'a template is a package others install; credentials belong to a file you own',
    fix: 'remove [credentials] and its encrypted rows; add them with byre credential add (--global, --layer or the project)',
  },
  {
    key: 'inject',
    kinds: ['template'],
    why: 'a template is a package others install; an injected credential belongs to a file you own',
    fix: 'remove [[inject.*]] and its injected rows; add them with byre credential add KEY --inject HOST (--global, --layer or the project)',
  },
  {
    key: 'extends',
    kinds: ['default'],
    why: 'default.config is the baseline of every box and cannot extend a layer',
    fix: 'remove extends from default.config, or set it in a project config',
  },
];

const KIND_FILE: Record<LayerKind, string> = {
  core: 'the core layer',
  default: 'default.config',
  template: 'template.config',
  layer: 'a layer file',
  project: 'the project config',
};

/** The file kinds that may not carry `key` at all. */
export function kindsBanning(key: string): LayerKind[] {
  return [...new Set(BANS.filter((ban) => ban.key === key).flatMap((ban) => ban.kinds))];
}

/** Keys that a file kind may not carry, whatever their value. */
export function checkPlacement(keys: readonly string[], kind: LayerKind): Finding[] {
  return BANS.filter((ban) => ban.kinds.includes(kind) && keys.includes(ban.key)).map((ban) =>
    finding(
      'config.key-banned-here',
      [ban.key],
      `${ban.key} is not allowed in ${KIND_FILE[kind]}: ${ban.why}`,
      ban.fix,
    ),
  );
}
