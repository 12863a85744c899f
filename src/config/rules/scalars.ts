// Rules for the top-level scalar keys: engine, base, template, agent,
// extends, worktree_base.

import {
  BUNDLED_NAMES,
  CONTROL,
  isHostPath,
  LAYER_NAME,
  NONE,
  OCI_REF,
  PACKAGE_REF,
} from '../grammar.js';
import type { RawLayer } from '../schema.js';
import { finding, q, type Finding } from './finding.js';

export function checkEngine(layer: RawLayer): Finding[] {
  const engine = layer.engine;
  if (engine === undefined || ['', 'auto', 'docker', 'podman'].includes(engine)) return [];
  return [
    finding(
      'config.engine-invalid',
      ['engine'],
      `engine ${q(engine)} invalid (want auto|docker|podman)`,
      'set engine = "auto", "docker" or "podman"',
    ),
  ];
}

export function checkBase(layer: RawLayer): Finding[] {
  const base = layer.base;
  if (base === undefined || base === '' || OCI_REF.test(base)) return [];
  return [
    finding(
      'config.base-invalid',
      ['base'],
      `base ${q(base)} is not an image reference`,
      'write an image reference such as "debian:bookworm" or "node:22"',
    ),
  ];
}

export function checkTemplateName(layer: RawLayer): Finding[] {
  const name = layer.template;
  if (name === undefined || name === '' || name === NONE || PACKAGE_REF.test(name)) return [];
  return [
    finding(
      'config.template-name-invalid',
      ['template'],
      `template ${q(name)} is not a template name`,
      'write a bare name ("node"), an owner/name id, byre/<name> for a bundled one, or "none"',
    ),
  ];
}

export function checkAgentName(layer: RawLayer): Finding[] {
  const name = layer.agent;
  if (name === undefined || name === '' || name === NONE || PACKAGE_REF.test(name)) return [];
  return [
    finding(
      'config.agent-invalid',
      ['agent'],
      `agent ${q(name)} is not a skill name`,
      'name an agent skill such as "claude", or "none"',
    ),
  ];
}

/** Why a layer name is refused, or null when it is fine. */
export function layerNameProblem(name: string): string | null {
  if (!LAYER_NAME.test(name)) {
    return 'a layer name is lowercase letters, digits and "-", starts with a letter or digit, and is at most 64 characters';
  }
  if (name === NONE) return '"none" is reserved';
  if (BUNDLED_NAMES.includes(name)) return `${q(name)} is reserved for a bundled package`;
  return null;
}

export function checkExtends(layer: RawLayer): Finding[] {
  const name = layer.extends;
  if (name === undefined) return [];
  const problem = layerNameProblem(name);
  if (problem === null) return [];
  return [
    finding(
      'config.layer-name-invalid',
      ['extends'],
      `extends ${q(name)}: ${problem}`,
      'name a layer under <BYRE_HOME>/layers/, or remove extends',
    ),
  ];
}

export function checkWorktreeBase(layer: RawLayer): Finding[] {
  const base = layer.worktree_base;
  if (base === undefined || base === '' || base === 'sibling') return [];
  if (isHostPath(base) && !base.includes(',') && !CONTROL.test(base)) return [];
  return [
    finding(
      'config.worktree-base-invalid',
      ['worktree_base'],
      `worktree_base ${q(base)} invalid`,
      'use "", "sibling", or a ~/… or absolute path without commas',
    ),
  ];
}
