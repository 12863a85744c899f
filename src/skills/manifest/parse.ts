// Parsing a package manifest: skill.toml text (or a template's [package]
// table) in, a typed SkillManifest plus located issues out. Pure: the caller
// supplies the text; never reads files or payload bytes.

import { parse as parseToml } from 'smol-toml';
import type { ConfigIssue } from '../../errors.js';
import { toMcpSpec, toMountSpec, toVolumeSpec } from '../../config/merge.js';
import {
  checkShape,
  locatorFor,
  MAX_CONFIG_BYTES,
  shapeFindings,
  syntaxIssue,
  tooLargeIssue,
} from '../../config/parse.js';
import { finding, type Finding } from '../../config/rules/finding.js';
import { tableKeysAt, type ValueShape } from '../../config/shape.js';
import { nearestName } from '../../config/suggest.js';
import { packageFindings, toPackageMeta } from './package-rules.js';
import {
  PACKAGE_SHAPE,
  REMOVED_SKILL_KEYS,
  SKILL_SHAPE,
  type ManifestResult,
  type PackageMeta,
  type RawSkill,
  type SkillManifest,
} from './schema.js';
import { asSkillFinding, SKILL_RULES } from './skill-rules.js';

function shapeToSkill(findings: Finding[], file: string, shape: ValueShape): Finding[] {
  return findings.map((f) => {
    if (f.rule === 'config.unknown-key') {
      const key = String(f.path[f.path.length - 1] ?? '');
      const known = tableKeysAt(shape, f.path.slice(0, -1));
      const suggestion = known === null ? null : nearestName(key, known);
      const name = f.path.map(String).join('.');
      return suggestion === null
        ? finding(
            'skill.unknown-key',
            f.path,
            `unknown key ${name} in ${file} — a typo, or a package written for a newer byre`,
            'upgrade byre, or remove the key',
          )
        : finding(
            'skill.unknown-key',
            f.path,
            `unknown key ${name} in ${file} — did you mean ${suggestion}?`,
            `rename it to ${suggestion}`,
          );
    }
    return asSkillFinding(f, []);
  });
}

function toSkillManifest(raw: RawSkill): SkillManifest {
  const rt = raw.runtime ?? {};
  const agent = raw.agent;
  const context = raw.context;
  return {
    package: raw.package === undefined ? null : toPackageMeta(raw.package),
    description: raw.description ?? null,
    companionFor: raw.companion_for ?? null,
    sharedAuthFor: raw.shared_auth_for ?? null,
    build: {
      apt: [...(raw.build?.apt ?? [])],
      node: raw.build?.node ?? null,
      dockerfile: [...(raw.build?.dockerfile ?? [])],
      files: { ...(raw.build?.files ?? {}) },
    },
    runtime: {
      env: { ...(rt.env ?? {}) },
      envDocs: { ...(rt.env_docs ?? {}) },
      runArgs: [...(rt.run_args ?? [])],
      caps: [...(rt.caps ?? [])],
      mounts: (rt.mounts ?? []).map((m) => toMountSpec(m)),
      networkPosture: rt.network_posture ?? null,
      netnsInit: rt.netns_init ?? null,
      egress: [...(rt.egress ?? [])],
      egressOffered: [...(rt.egress_offered ?? [])],
      sockGroups: [...(rt.sock_groups ?? [])],
      containment: rt.containment ?? null,
    },
    agent:
      agent === undefined
        ? null
        : {
            command: agent.command ?? '',
            state: agent.state ?? null,
            context: agent.context === 'inject',
            mcp: agent.mcp === 'inject',
            claudeSkills: agent.claude_skills === 'inject',
            prefs:
              agent.prefs === undefined
                ? null
                : { from: agent.prefs.from ?? '', files: [...(agent.prefs.files ?? [])] },
          },
    mcp: (raw.mcp ?? []).map(toMcpSpec),
    claudeSkills: (raw.claude_skills ?? []).map((c) => ({
      name: c.name ?? '',
      from: c.from ?? '',
    })),
    volumes: (raw.volumes ?? []).map(toVolumeSpec),
    context:
      context === undefined
        ? null
        : context.text !== undefined
          ? { text: context.text }
          : { file: context.file ?? '' },
  };
}

function parseTable(
  text: string,
  file: string,
): { table: Record<string, unknown> } | { issues: ConfigIssue[] } {
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > MAX_CONFIG_BYTES)
    return { issues: [{ ...tooLargeIssue(file, bytes), rule: 'skill.too-large' }] };
  try {
    return { table: parseToml(text) as Record<string, unknown> };
  } catch (error) {
    const issue = syntaxIssue(error, file, text);
    return { issues: [{ ...issue, rule: issue.rule.replace(/^config\./, 'skill.') }] };
  }
}

/** The table without keys this format removed, and a finding for each (adr/0020). */
function withoutRemovedKeys(table: Record<string, unknown>): {
  table: Record<string, unknown>;
  removed: Finding[];
} {
  const removed: Finding[] = [];
  const out: Record<string, unknown> = { ...table };
  for (const [where, keys] of Object.entries(REMOVED_SKILL_KEYS)) {
    const nested = where === '' ? null : out[where];
    if (where !== '' && (typeof nested !== 'object' || nested === null || Array.isArray(nested)))
      continue;
    const holder: Record<string, unknown> =
      nested === null ? out : { ...(nested as Record<string, unknown>) };
    for (const [key, why] of Object.entries(keys)) {
      if (!(key in holder)) continue;
      delete holder[key];
      const path = where === '' ? [key] : [where, key];
      removed.push(finding('skill.key-removed', path, why.message, why.fix));
    }
    if (nested !== null) out[where] = holder;
  }
  return { table: out, removed };
}

/** Parse and validate one skill.toml. Pure: the caller supplies the text. */
export function parseSkillManifest(text: string, file: string): ManifestResult<SkillManifest> {
  const parsed = parseTable(text, file);
  if ('issues' in parsed) return { value: null, issues: parsed.issues };
  const locate = locatorFor(text, file);
  const { table, removed } = withoutRemovedKeys(parsed.table);
  const shaped = checkShape(table, SKILL_SHAPE);
  if ('issues' in shaped) {
    return {
      value: null,
      issues: locate([
        ...removed,
        ...shapeToSkill(shapeFindings(shaped.issues, table), 'skill.toml', SKILL_SHAPE),
      ]),
    };
  }
  if (removed.length > 0) return { value: null, issues: locate(removed) };
  const raw = shaped.value;
  const findings = [
    ...(raw.package === undefined ? [] : packageFindings(raw.package, { kind: 'skill' })),
    ...SKILL_RULES.flatMap((rule) => rule(raw)),
  ];
  if (findings.length > 0) return { value: null, issues: locate(findings) };
  return { value: toSkillManifest(raw), issues: [] };
}

/**
 * The [package] table of a template.config (the body is the layer parser's
 * business). A template without [package] yields an all-null meta.
 */
export function parseTemplatePackage(text: string, file: string): ManifestResult<PackageMeta> {
  const parsed = parseTable(text, file);
  if ('issues' in parsed) return { value: null, issues: parsed.issues };
  const table = parsed.table['package'];
  if (table === undefined) return { value: toPackageMeta({}), issues: [] };
  const locate = locatorFor(text, file);
  const shaped = checkShape(table, PACKAGE_SHAPE);
  if ('issues' in shaped) {
    const findings = shapeToSkill(
      shapeFindings(shaped.issues, table),
      'template.config [package]',
      PACKAGE_SHAPE,
    ).map((f) => ({
      ...f,
      path: ['package', ...f.path],
    }));
    return { value: null, issues: locate(findings) };
  }
  const findings = packageFindings(shaped.value, { kind: 'template' });
  if (findings.length > 0) return { value: null, issues: locate(findings) };
  return { value: toPackageMeta(shaped.value), issues: [] };
}
