// Parsing a package manifest: skill.toml text (or a template's [package]
// table) in, a typed SkillManifest plus located issues out. Pure: the caller
// supplies the text; never reads files or payload bytes.

import { parse as parseToml } from 'smol-toml';
import type { ConfigIssue } from '../../errors.js';
import { indexKeys } from '../../config/locate.js';
import { toMcpSpec, toMountSpec, toVolumeSpec } from '../../config/merge.js';
import {
  locateFinding,
  MAX_CONFIG_BYTES,
  shapeFindings,
  syntaxIssue,
  tooLargeIssue,
} from '../../config/parse.js';
import { finding, type Finding } from '../../config/rules/finding.js';
import { packageFindings, toPackageMeta } from './package-rules.js';
import {
  rawPackageSchema,
  rawSkillSchema,
  type ManifestResult,
  type PackageMeta,
  type RawSkill,
  type SkillManifest,
} from './schema.js';
import { asSkillFinding, SKILL_RULES } from './skill-rules.js';

function shapeToSkill(findings: Finding[], file: string): Finding[] {
  return findings.map((f) => {
    if (f.rule === 'config.unknown-key') {
      return finding(
        'skill.unknown-key',
        f.path,
        `unknown key ${f.path.map(String).join('.')} in ${file} — a typo, or a package written for a newer byre`,
        'upgrade byre, or remove the key',
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

/** Parse and validate one skill.toml. Pure: the caller supplies the text. */
export function parseSkillManifest(text: string, file: string): ManifestResult<SkillManifest> {
  const parsed = parseTable(text, file);
  if ('issues' in parsed) return { value: null, issues: parsed.issues };
  const index = indexKeys(text);
  const locate = (findings: readonly Finding[]): ConfigIssue[] =>
    findings.map((f) => locateFinding(f, file, index));
  const shaped = rawSkillSchema.safeParse(parsed.table);
  if (!shaped.success) {
    return {
      value: null,
      issues: locate(shapeToSkill(shapeFindings(shaped.error.issues, parsed.table), 'skill.toml')),
    };
  }
  const raw = shaped.data;
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
  const index = indexKeys(text);
  const shaped = rawPackageSchema.safeParse(table);
  if (!shaped.success) {
    const findings = shapeToSkill(
      shapeFindings(shaped.error.issues, table),
      'template.config [package]',
    ).map((f) => ({
      ...f,
      path: ['package', ...f.path],
    }));
    return { value: null, issues: findings.map((f) => locateFinding(f, file, index)) };
  }
  const findings = packageFindings(shaped.data, { kind: 'template' });
  if (findings.length > 0)
    return { value: null, issues: findings.map((f) => locateFinding(f, file, index)) };
  return { value: toPackageMeta(shaped.data), issues: [] };
}
