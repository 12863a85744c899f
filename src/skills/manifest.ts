// Pure validation of a package manifest: skill.toml text (or a template's
// [package] table) in, a typed SkillManifest plus located issues out. Reuses
// the config rules for shared vocabulary; never reads files or payload bytes.

import { parse as parseToml } from 'smol-toml';
import { z } from 'zod';
import type { ConfigIssue } from '../errors.js';
import type { PathSegment } from '../config/locate.js';
import { indexKeys } from '../config/locate.js';
import { toMcpSpec, toMountSpec, toVolumeSpec } from '../config/merge.js';
import {
  locateFinding,
  MAX_CONFIG_BYTES,
  shapeFindings,
  syntaxIssue,
  tooLargeIssue,
} from '../config/parse.js';
import {
  checkApt,
  checkEgress,
  checkEnv,
  checkMcp,
  checkMounts,
  checkTargetCollisions,
  checkVolumes,
  isContainedRelative,
  normalizeTarget,
  PACKAGE_REF,
  WIRING_NAME,
  type Finding,
} from '../config/rules.js';
import { rawMcpSchema, rawVolumeSchema, type RawLayer } from '../config/schema.js';
import type { McpSpec, VolumeSpec } from '../config/types.js';
import type { SkillRuntime } from './types.js';

export type PackageKind = 'skill' | 'template';

/** The file a package's manifest lives in, by kind. */
export const MANIFEST_FILE: Record<PackageKind, string> = {
  skill: 'skill.toml',
  template: 'template.config',
};

export const PACKAGE_API = 1;
export const MAX_CONTEXT_BYTES = 1024 * 1024;
export const MAX_CONTAINMENT_CHARS = 300;
export const NETWORK_POSTURE = /^[a-z0-9][a-z0-9-]{0,31}$/;
export const SHA256_HEX = /^[0-9a-f]{64}$/;

/** One payload file of an installed or packed package. */
export interface PackageFileEntry {
  /** Where to fetch it, relative to the manifest (URL or path). */
  src: string;
  /** Package-relative path in the snapshot. */
  dest: string;
  sha256: string;
  executable: boolean;
}

export interface PackageMeta {
  id: string | null;
  version: string | null;
  kind: PackageKind | null;
  packageApi: number | null;
  requiresByre: string | null;
  description: string | null;
  files: PackageFileEntry[] | null;
}

export interface SkillManifest {
  package: PackageMeta | null;
  description: string | null;
  companionFor: string | null;
  sharedAuthFor: string | null;
  build: {
    apt: string[];
    dockerfile: string[];
    /** package-relative src ("." = the whole package) -> absolute dest in the image. */
    files: Record<string, string>;
  };
  runtime: SkillRuntime & { envDocs: Record<string, string> };
  agent: {
    command: string;
    state: string | null;
    context: boolean;
    mcp: boolean;
    claudeSkills: boolean;
    prefs: { from: string; files: string[] } | null;
  } | null;
  mcp: McpSpec[];
  claudeSkills: { name: string; from: string }[];
  volumes: VolumeSpec[];
  context: { text: string } | { file: string } | null;
}

export interface ManifestResult<T> {
  value: T | null;
  issues: ConfigIssue[];
}

// ---------------------------------------------------------------- shape

const str = z.string();
const strList = z.array(z.string());
const strMap = z.record(z.string(), z.string());

const packageFileSchema = z.strictObject({
  src: str.optional(),
  dest: str.optional(),
  sha256: str.optional(),
  executable: z.boolean().optional(),
});

export const rawPackageSchema = z.strictObject({
  id: str.optional(),
  version: str.optional(),
  kind: str.optional(),
  package_api: z.number().int().optional(),
  requires_byre: str.optional(),
  description: str.optional(),
  files: z.array(packageFileSchema).optional(),
});

const skillMountSchema = z.strictObject({
  host: str.optional(),
  target: str.optional(),
  mode: str.optional(),
});

const rawSkillSchema = z.strictObject({
  package: rawPackageSchema.optional(),
  description: str.optional(),
  companion_for: str.optional(),
  shared_auth_for: str.optional(),
  build: z
    .strictObject({
      apt: strList.optional(),
      dockerfile: strList.optional(),
      files: strMap.optional(),
    })
    .optional(),
  runtime: z
    .strictObject({
      env: strMap.optional(),
      env_docs: strMap.optional(),
      run_args: strList.optional(),
      caps: strList.optional(),
      mounts: z.array(skillMountSchema).optional(),
      network_posture: str.optional(),
      netns_init: str.optional(),
      egress: strList.optional(),
      egress_offered: strList.optional(),
      sock_groups: strList.optional(),
      containment: str.optional(),
    })
    .optional(),
  agent: z
    .strictObject({
      command: str.optional(),
      state: str.optional(),
      context: str.optional(),
      mcp: str.optional(),
      claude_skills: str.optional(),
      /** Retired: accepted and ignored. */
      context_target: str.optional(),
      prefs: z.strictObject({ from: str.optional(), files: strList.optional() }).optional(),
    })
    .optional(),
  mcp: z.array(rawMcpSchema).optional(),
  claude_skills: z.array(z.strictObject({ name: str.optional(), from: str.optional() })).optional(),
  volumes: z.array(rawVolumeSchema).optional(),
  context: z.strictObject({ text: str.optional(), file: str.optional() }).optional(),
});

type RawSkill = z.infer<typeof rawSkillSchema>;
type RawPackage = z.infer<typeof rawPackageSchema>;

// ---------------------------------------------------------------- helpers

const q = (value: string): string => JSON.stringify(value);
const CONTROL = /[\u0000-\u001f\u007f]/;

function finding(rule: string, path: PathSegment[], message: string, fix?: string): Finding {
  return fix === undefined ? { rule, path, message } : { rule, path, message, fix };
}

/** Config rules speak `config.*`; inside a manifest the same rule is `skill.*`. */
function asSkillFinding(
  f: Finding,
  prefix: PathSegment[],
  rename: (p: PathSegment[]) => PathSegment[] = (p) => p,
): Finding {
  const rule = f.rule.startsWith('config.') ? `skill.${f.rule.slice('config.'.length)}` : f.rule;
  return { ...f, rule, path: [...prefix, ...rename(f.path)] };
}

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

function isAbsolute(p: string): boolean {
  return p.startsWith('/') && !CONTROL.test(p);
}

// ---------------------------------------------------------------- [package]

export interface PackageContext {
  kind: PackageKind;
}

export function packageFindings(raw: RawPackage, ctx: PackageContext): Finding[] {
  const out: Finding[] = [];
  const path: PathSegment[] = ['package'];
  if (raw.id !== undefined && !PACKAGE_REF.test(raw.id)) {
    out.push(
      finding(
        'package.id-invalid',
        [...path, 'id'],
        `package id ${q(raw.id)} is not a package id`,
        'write a bare name ("mytool") or owner/name ("me/mytool")',
      ),
    );
  }
  if (raw.kind !== undefined && raw.kind !== ctx.kind) {
    out.push(
      finding(
        'package.kind-mismatch',
        [...path, 'kind'],
        `package kind ${q(raw.kind)} in a ${MANIFEST_FILE[ctx.kind]}; want ${q(ctx.kind)}`,
        `set kind = ${q(ctx.kind)}`,
      ),
    );
  }
  if (raw.package_api !== undefined && raw.package_api !== PACKAGE_API) {
    out.push(
      finding(
        'package.api-unsupported',
        [...path, 'package_api'],
        `package_api ${raw.package_api} is not supported by this byre (it reads ${PACKAGE_API})`,
        'upgrade byre, or ask the author for a package_api = 1 release',
      ),
    );
  }
  if (raw.requires_byre !== undefined && !/^(>=)?\d+\.\d+\.\d+$/.test(raw.requires_byre)) {
    out.push(
      finding(
        'package.requires-byre-invalid',
        [...path, 'requires_byre'],
        `requires_byre ${q(raw.requires_byre)} is not a version`,
        'write a minimum version such as ">=0.1.0"',
      ),
    );
  }
  if (raw.description !== undefined && CONTROL.test(raw.description)) {
    out.push(
      finding(
        'package.description-invalid',
        [...path, 'description'],
        'package description must be one line',
        'remove the newline',
      ),
    );
  }
  const dests = new Set<string>();
  (raw.files ?? []).forEach((file, i) => {
    const at: PathSegment[] = [...path, 'files', i];
    for (const key of ['src', 'dest', 'sha256'] as const) {
      if (file[key] === undefined) {
        out.push(
          finding(
            'package.file-missing-key',
            [...at, key],
            `[[package.files]] entry needs ${key}`,
            `add ${key} = …`,
          ),
        );
      }
    }
    if (file.src !== undefined && (file.src === '' || CONTROL.test(file.src))) {
      out.push(
        finding(
          'package.file-src-invalid',
          [...at, 'src'],
          `payload src ${q(file.src)} is empty or has control characters`,
          'write the path or URL of the file, relative to the manifest',
        ),
      );
    }
    if (file.dest !== undefined) {
      if (
        !isContainedRelative(file.dest) ||
        file.dest.split('/').some((s) => s === '..' || s === '.')
      ) {
        out.push(
          finding(
            'skill.payload-escapes',
            [...at, 'dest'],
            `payload dest ${q(file.dest)} must be a plain package-relative path`,
            'write dest as a relative path inside the package, without ".." or "."',
          ),
        );
      } else if (dests.has(file.dest) || file.dest === MANIFEST_FILE[ctx.kind]) {
        out.push(
          finding(
            'package.file-duplicate',
            [...at, 'dest'],
            `payload dest ${q(file.dest)} is claimed twice (or is the manifest)`,
            'keep one entry per destination',
          ),
        );
      }
      dests.add(file.dest);
    }
    if (file.sha256 !== undefined && !SHA256_HEX.test(file.sha256)) {
      out.push(
        finding(
          'package.file-sha256-invalid',
          [...at, 'sha256'],
          `sha256 ${q(file.sha256)} is not 64 lowercase hex digits`,
          'recompute it with byre skill pack',
        ),
      );
    }
  });
  return out;
}

export function toPackageMeta(raw: RawPackage): PackageMeta {
  return {
    id: raw.id ?? null,
    version: raw.version ?? null,
    kind: raw.kind === 'skill' || raw.kind === 'template' ? raw.kind : null,
    packageApi: raw.package_api ?? null,
    requiresByre: raw.requires_byre ?? null,
    description: raw.description ?? null,
    files:
      raw.files === undefined
        ? null
        : raw.files.map((f) => ({
            src: f.src ?? '',
            dest: f.dest ?? '',
            sha256: f.sha256 ?? '',
            executable: f.executable ?? false,
          })),
  };
}

// ---------------------------------------------------------------- skill rules

function pseudoLayer(raw: RawSkill): RawLayer {
  const layer: RawLayer = {};
  if (raw.build?.apt) layer.apt = raw.build.apt;
  if (raw.runtime?.env) layer.env = raw.runtime.env;
  if (raw.runtime?.mounts) layer.mounts = raw.runtime.mounts;
  if (raw.runtime?.egress) layer.egress = raw.runtime.egress;
  if (raw.runtime?.egress_offered) layer.egress_offered = raw.runtime.egress_offered;
  if (raw.volumes) layer.volumes = raw.volumes;
  if (raw.mcp) layer.mcp = raw.mcp;
  return layer;
}

/** Where each pseudo-layer key lives in skill.toml. */
const SKILL_PATHS: Record<string, PathSegment[]> = {
  apt: ['build', 'apt'],
  env: ['runtime', 'env'],
  mounts: ['runtime', 'mounts'],
  egress: ['runtime', 'egress'],
  egress_offered: ['runtime', 'egress_offered'],
};

function relocate(f: Finding): Finding {
  const [head, ...rest] = f.path;
  const mapped = typeof head === 'string' ? SKILL_PATHS[head] : undefined;
  return asSkillFinding(f, [], () => (mapped === undefined ? f.path : [...mapped, ...rest]));
}

function sharedRuleFindings(raw: RawSkill): Finding[] {
  const layer = pseudoLayer(raw);
  const findings = [
    ...checkApt(layer),
    ...checkEnv(layer),
    ...checkMounts(layer),
    ...checkVolumes(layer),
    ...checkTargetCollisions(layer),
    ...checkEgress(layer),
    ...checkMcp(layer),
  ];
  return findings.map(relocate);
}

function removalMarkers(raw: RawSkill): Finding[] {
  const out: Finding[] = [];
  const marker = (path: PathSegment[], value: string | undefined): void => {
    if (value?.startsWith('!') !== true) return;
    out.push(
      finding(
        'skill.removal-marker',
        path,
        `${q(value)}: removal markers belong in config layers, not in a skill`,
        'declare what the skill contributes; users close entries in their config',
      ),
    );
  };
  (raw.runtime?.mounts ?? []).forEach((m, i) =>
    marker(['runtime', 'mounts', i, 'target'], m.target),
  );
  (raw.volumes ?? []).forEach((v, i) => marker(['volumes', i, 'name'], v.name));
  (raw.mcp ?? []).forEach((m, i) => marker(['mcp', i, 'name'], m.name));
  (raw.claude_skills ?? []).forEach((c, i) => marker(['claude_skills', i, 'name'], c.name));
  for (const key of ['egress', 'egress_offered'] as const) {
    (raw.runtime?.[key] ?? []).forEach((e, i) => marker(['runtime', key, i], e));
  }
  return out;
}

function payloadSrcFinding(path: PathSegment[], src: string, what: string): Finding[] {
  if (src === '.' || isContainedRelative(src)) return [];
  return [
    finding(
      'skill.payload-escapes',
      path,
      `${what} ${q(src)} must stay inside the package`,
      'write a package-relative path (no absolute path, no ".." escape); "." means the whole package',
    ),
  ];
}

function buildFindings(raw: RawSkill): Finding[] {
  const out: Finding[] = [];
  const claimed = new Map<string, string>();
  for (const [src, dest] of Object.entries(raw.build?.files ?? {})) {
    const path: PathSegment[] = ['build', 'files', src];
    out.push(...payloadSrcFinding(path, src, 'build file source'));
    if (!isAbsolute(dest)) {
      out.push(
        finding(
          'skill.files-dest-not-absolute',
          path,
          `build file destination ${q(dest)} must be an absolute path in the image`,
          'write the destination as an absolute path such as "/usr/local/bin/tool"',
        ),
      );
      continue;
    }
    const key = normalizeTarget(dest);
    const earlier = claimed.get(key);
    if (earlier !== undefined) {
      out.push(
        finding(
          'skill.files-dest-duplicate',
          path,
          `build files ${q(earlier)} and ${q(src)} both target ${key}`,
          'one destination takes one source; drop or move one',
        ),
      );
    }
    claimed.set(key, src);
  }
  (raw.build?.dockerfile ?? []).forEach((line, i) => {
    if (/[\n\r]/.test(line)) {
      out.push(
        finding(
          'skill.dockerfile-line-invalid',
          ['build', 'dockerfile', i],
          'a raw build line must not contain a newline',
          'split it into one array entry per Dockerfile line',
        ),
      );
    }
  });
  return out;
}

function runtimeFindings(raw: RawSkill): Finding[] {
  const rt = raw.runtime;
  if (rt === undefined) return [];
  const out: Finding[] = [];
  if (rt.network_posture !== undefined && !NETWORK_POSTURE.test(rt.network_posture)) {
    out.push(
      finding(
        'skill.network-posture-invalid',
        ['runtime', 'network_posture'],
        `network_posture ${q(rt.network_posture)} invalid`,
        'use lowercase letters, digits and "-", at most 32 characters',
      ),
    );
  }
  if (rt.netns_init !== undefined && !isAbsolute(rt.netns_init)) {
    out.push(
      finding(
        'skill.netns-init-not-absolute',
        ['runtime', 'netns_init'],
        `netns_init ${q(rt.netns_init)} must be an absolute path in the image`,
        'point it at the script the skill installs, e.g. "/usr/local/bin/byre-firewall"',
      ),
    );
  }
  const mountTargets = new Set(
    (rt.mounts ?? []).flatMap((m) => (m.target === undefined ? [] : [normalizeTarget(m.target)])),
  );
  (rt.sock_groups ?? []).forEach((sock, i) => {
    const path: PathSegment[] = ['runtime', 'sock_groups', i];
    if (!isAbsolute(sock)) {
      out.push(
        finding(
          'skill.sock-group-not-absolute',
          path,
          `sock_groups entry ${q(sock)} must be an absolute path`,
          'name the socket path as the box sees it',
        ),
      );
    } else if (!mountTargets.has(normalizeTarget(sock))) {
      out.push(
        finding(
          'skill.sock-group-not-mounted',
          path,
          `sock_groups entry ${q(sock)} is not a mount target of this skill`,
          'add a [[runtime.mounts]] entry whose target is the socket',
        ),
      );
    }
  });
  if (
    rt.containment !== undefined &&
    ([...rt.containment].length > MAX_CONTAINMENT_CHARS || CONTROL.test(rt.containment))
  ) {
    out.push(
      finding(
        'skill.containment-too-long',
        ['runtime', 'containment'],
        `containment must be one line of at most ${MAX_CONTAINMENT_CHARS} characters`,
        'shorten it to a one-liner; details belong in the skill context',
      ),
    );
  }
  (rt.caps ?? []).forEach((cap, i) => {
    if (!/^[A-Z][A-Z0-9_]*$/.test(cap)) {
      out.push(
        finding(
          'skill.cap-invalid',
          ['runtime', 'caps', i],
          `capability ${q(cap)} invalid`,
          'write a capability name such as "NET_ADMIN"',
        ),
      );
    }
  });
  for (const [key, doc] of Object.entries(rt.env_docs ?? {})) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) || CONTROL.test(doc)) {
      out.push(
        finding(
          'skill.env-docs-invalid',
          ['runtime', 'env_docs', key],
          `env_docs ${q(key)} must name a variable and carry one line of guidance`,
          'write NAME = "one-line guidance"',
        ),
      );
    }
  }
  return out;
}

function agentFindings(raw: RawSkill): Finding[] {
  const agent = raw.agent;
  if (agent === undefined) return [];
  const out: Finding[] = [];
  if (agent.command === undefined || agent.command.trim() === '') {
    out.push(
      finding(
        'skill.agent-command-missing',
        ['agent', 'command'],
        '[agent] needs a command (what the launcher execs)',
        'add command = "tool --autonomy-flag", or remove [agent] for a non-agent skill',
      ),
    );
  } else if (/[\n\r\0]/.test(agent.command)) {
    out.push(
      finding(
        'skill.agent-command-invalid',
        ['agent', 'command'],
        '[agent] command must be one line',
        'remove the newline',
      ),
    );
  }
  if (agent.state !== undefined) {
    const state = (raw.volumes ?? []).find((v) => v.name === agent.state && v.role === 'state');
    if (state === undefined) {
      out.push(
        finding(
          'skill.agent-state-unknown',
          ['agent', 'state'],
          `[agent] state ${q(agent.state)} names none of this skill's state volumes`,
          'declare a [[volumes]] entry with that name and role = "state", or fix the name',
        ),
      );
    }
  }
  for (const key of ['context', 'mcp', 'claude_skills'] as const) {
    const value = agent[key];
    if (value !== undefined && value !== 'inject') {
      out.push(
        finding(
          'skill.agent-delivery-invalid',
          ['agent', key],
          `[agent] ${key} = ${q(value)} invalid (the only channel is "inject")`,
          `set ${key} = "inject", or remove it`,
        ),
      );
    }
  }
  const prefs = agent.prefs;
  if (prefs !== undefined) {
    if (
      prefs.from === undefined ||
      !(prefs.from === '~' || prefs.from.startsWith('~/') || prefs.from.startsWith('/'))
    ) {
      out.push(
        finding(
          'skill.agent-prefs-invalid',
          ['agent', 'prefs', 'from'],
          '[agent.prefs] from must be a ~/… or absolute host directory',
          'write from = "~/.tool"',
        ),
      );
    }
    (prefs.files ?? []).forEach((f, i) => {
      if (!isContainedRelative(f)) {
        out.push(
          finding(
            'skill.agent-prefs-invalid',
            ['agent', 'prefs', 'files', i],
            `[agent.prefs] file ${q(f)} must be relative to from`,
            'write a relative path such as "settings.json"',
          ),
        );
      }
    });
  }
  return out;
}

function wiringFindings(raw: RawSkill): Finding[] {
  const out: Finding[] = [];
  const seen = new Set<string>();
  (raw.claude_skills ?? []).forEach((entry, i) => {
    const path: PathSegment[] = ['claude_skills', i];
    if (entry.name === undefined) {
      out.push(
        finding(
          'skill.missing-key',
          [...path, 'name'],
          'a [[claude_skills]] entry needs name',
          'add name = …',
        ),
      );
      return;
    }
    if (!entry.name.startsWith('!') && !WIRING_NAME.test(entry.name)) {
      out.push(
        finding(
          'skill.claude-skill-name-invalid',
          [...path, 'name'],
          `claude skill name ${q(entry.name)} invalid`,
          'use lowercase letters, digits and "-", at most 64 characters',
        ),
      );
    }
    if (seen.has(entry.name)) {
      out.push(
        finding(
          'skill.claude-skill-duplicate',
          [...path, 'name'],
          `claude skill ${q(entry.name)} is declared twice in this file`,
          'keep one declaration',
        ),
      );
    }
    seen.add(entry.name);
    if (entry.from === undefined) {
      out.push(
        finding(
          'skill.missing-key',
          [...path, 'from'],
          `claude skill ${q(entry.name)} needs from`,
          'add from = "path/inside/the/package"',
        ),
      );
    } else out.push(...payloadSrcFinding([...path, 'from'], entry.from, 'claude skill from'));
  });
  const context = raw.context;
  if (context !== undefined) {
    if ((context.text === undefined) === (context.file === undefined)) {
      out.push(
        finding(
          'skill.context-text-or-file',
          ['context'],
          '[context] needs exactly one of text and file',
          'write text = "…" or file = "context.md"',
        ),
      );
    }
    if (context.file !== undefined)
      out.push(...payloadSrcFinding(['context', 'file'], context.file, 'context file'));
    if (
      context.text !== undefined &&
      new TextEncoder().encode(context.text).length > MAX_CONTEXT_BYTES
    ) {
      out.push(
        finding(
          'skill.context-too-large',
          ['context', 'text'],
          'skill context is over 1 MiB',
          'trim the prose',
        ),
      );
    }
  }
  if (raw.companion_for !== undefined && raw.shared_auth_for !== undefined) {
    out.push(
      finding(
        'skill.companion-and-shared-auth',
        ['shared_auth_for'],
        'companion_for and shared_auth_for are exclusive',
        'keep shared_auth_for when the skill vouches for the onboarding offer, else companion_for',
      ),
    );
  }
  for (const key of ['companion_for', 'shared_auth_for'] as const) {
    const value = raw[key];
    if (value !== undefined && !PACKAGE_REF.test(value)) {
      out.push(
        finding(
          'skill.pairing-invalid',
          [key],
          `${key} ${q(value)} is not a skill id`,
          'name the agent skill, e.g. "claude"',
        ),
      );
    }
  }
  if (raw.description !== undefined && CONTROL.test(raw.description)) {
    out.push(
      finding(
        'skill.description-invalid',
        ['description'],
        'description must be one line',
        'remove the newline',
      ),
    );
  }
  return out;
}

const SKILL_RULES: readonly ((raw: RawSkill) => Finding[])[] = [
  removalMarkers,
  sharedRuleFindings,
  buildFindings,
  runtimeFindings,
  agentFindings,
  wiringFindings,
];

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
    return { issues: [{ ...syntaxIssue(error, file), rule: 'skill.toml-syntax' }] };
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

/** Whether `version` satisfies `requires_byre` (">=x.y.z" or "x.y.z", both minimums). */
export function satisfiesRequiresByre(requirement: string, version: string): boolean {
  const parse = (v: string): number[] =>
    v
      .replace(/^>=/, '')
      .split(/[.+-]/)
      .slice(0, 3)
      .map((n) => Number.parseInt(n, 10) || 0);
  const want = parse(requirement);
  const have = parse(version);
  for (let i = 0; i < 3; i++) {
    const a = have[i] ?? 0;
    const b = want[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}
