// From the buffer to what the screen shows: the file parsed by the loader's
// own rules, merged over the layers beneath it, the skills it enables
// resolved, and the same grant facts `byre status` computes, so the header's
// exposure summary and status never disagree. Pure over the injected world.

import { canonicalLayer } from '../../../config/canonical.js';
import {
  checkEffective,
  checkMountHosts,
  containmentIssues,
  layerLocator,
  valueLocation,
  type CheckedLayer,
} from '../../../config/check-effective.js';
import { mergeLayers } from '../../../config/merge.js';
import { parseLayer } from '../../../config/parse.js';
import type { RawLayer } from '../../../config/schema.js';
import type { LayerRef } from '../../../config/types.js';
import { ByreError, ConfigError, type ConfigIssue } from '../../../errors.js';
import { resolveHostEnv } from '../../../hostenv/resolve.js';
import { resolveEnabledSkills } from '../../../skills/resolve.js';
import type { ResolvedSkill } from '../../../skills/types.js';
import { exposureSummary } from '../../../status/exposure.js';
import { grantFacts } from '../../../status/model.js';
import type { Below, Derived, EditorFile, EditorWorld } from './types.js';

function fileRef(file: EditorFile): LayerRef {
  return { kind: file.kind, name: file.name, path: file.path };
}

/** The buffer parsed as the loader parses this file kind: the layer, or its located issues. */
export function parseBuffer(
  text: string,
  file: EditorFile,
): { raw: RawLayer | null; issues: ConfigIssue[] } {
  const parsed = parseLayer(text, { file: file.path, kind: file.kind, name: file.name });
  return { raw: parsed.value, issues: parsed.issues };
}

/** What decides the layers beneath: the template and the parent a file names. */
export function belowKey(raw: RawLayer | null, file: EditorFile): string {
  if (file.kind === 'default') return '';
  const template = file.kind === 'project' ? (raw?.template ?? '') : '';
  return `${template}|${raw?.extends ?? ''}`;
}

function skillProblems(error: unknown): ConfigIssue[] {
  if (error instanceof ConfigError) return [...error.issues];
  if (error instanceof ByreError) {
    return [
      {
        rule: error.rule,
        message: error.message,
        location: error.location ?? { file: '' },
        ...(error.remedy === undefined ? {} : { fix: error.remedy }),
      },
    ];
  }
  throw error;
}

/** Everything that follows from `text` (already validated) over `below`. */
export function derive(text: string, below: Below, world: EditorWorld): Derived {
  const ref = fileRef(world.file);
  const raw = parseBuffer(text, world.file).raw ?? {};
  const mine: CheckedLayer = { ref, raw: canonicalLayer(raw, world.canon), text };
  const layers = [...below.layers, mine];
  const config = mergeLayers(layers);
  if (world.file.kind === 'project' && below.template !== null && config.template !== null) {
    config.template = { value: below.template, from: ref };
  }
  const locate = valueLocation(layers);
  const problems = [
    ...checkEffective(config, layers),
    ...checkMountHosts(config, layerLocator(locate), world.userHome, world.hostExists),
  ];
  let skills: ResolvedSkill[] = [];
  let skillError: string | null = null;
  try {
    skills = resolveEnabledSkills(config, world.skills, locate);
  } catch (error) {
    const found = skillProblems(error);
    problems.push(...found);
    skillError = found[0]?.message ?? 'skills unresolved';
  }
  problems.push(...world.plantedLinks(config, skills, locate));
  problems.push(
    ...containmentIssues(
      config,
      world.containment(config, skills),
      layerLocator(locate),
      world.file.path,
    ),
  );
  const hostEnv = resolveHostEnv(
    config.envFromHost,
    new Set(Object.keys(config.env)),
    world.readers,
  );
  const facts = grantFacts({
    config,
    skills,
    skillError,
    hostEnv,
    projectId: world.projectId,
    hostUid: world.hostUid,
  });
  return {
    raw,
    ref,
    config,
    skills,
    skillError,
    facts,
    summary: exposureSummary(facts),
    problems,
  };
}

/** How an issue reads on one line: where, what, and the rule. */
export function issueLine(issue: ConfigIssue): string {
  const { file, line, column, key } = issue.location;
  const name = file.split('/').pop() ?? file;
  const at = [
    line === undefined ? name : `${name}:${line}:${column ?? 1}`,
    ...(key === undefined ? [] : [key]),
  ].join(' ');
  return `${at}: ${issue.message} (${issue.rule})`;
}

/**
 * The problems `after` has that `before` did not: an edit is refused only
 * for what it breaks, never for a problem the file already had.
 */
export function newProblems(
  before: readonly ConfigIssue[],
  after: readonly ConfigIssue[],
): ConfigIssue[] {
  const seen = new Set(before.map((i) => `${i.rule}\u0000${i.message}`));
  return after.filter((i) => !seen.has(`${i.rule}\u0000${i.message}`));
}
