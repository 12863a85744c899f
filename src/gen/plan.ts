// Turns the resolved config and enabled skills into a build plan: the
// Dockerfile input, its text, and every file the build context must hold.
// Pure: host files (config `files`, [[context]] files) are named, never read.

import path from 'node:path';

import type { EffectiveConfig, McpSpec, Sourced } from '../config/types.js';
import { deliveredCredentialRows } from '../config/credential-rows.js';
import { ByreError, type Location } from '../errors.js';
import type { ClaudeSkillFile, ResolvedSkill } from '../skills/types.js';
import { chassisFiles } from './chassis.js';
import { stagedContextPath } from './copy-operand.js';
import { renderConfigDoc } from '../config/config-doc.js';
import { contextSizeWarning } from '../config/rules/warnings.js';
import { CONFIG_REFERENCE_PATH, SELF_EDIT_DIR } from './box-layout.js';
import {
  compareStrings,
  CREDENTIAL_GATE_STAGED,
  CREDENTIAL_GATE_TEXT,
  EDGE_GATE_STAGED,
  EDGE_GATE_TEXT,
  EDGE_CA_STAGED,
  guardedPathCollisions,
  wiringPathCollisions,
  WIRING_STAGED_DIR,
  postureGuardFor,
  renderDockerfile,
  type DockerfileInput,
  type StagedCopy,
} from './dockerfile.js';

/** Where a context file's bytes come from. */
type ContextSource =
  | { kind: 'bytes'; bytes: string | Uint8Array }
  /** A config `files` entry: copied from the project at staging, confined to it. */
  | { kind: 'project-file'; key: string; src: string; hostPath: string; location: Location };

export interface ContextEntry {
  /** Relative to the context root, `/`-separated. */
  path: string;
  /** Ignored for project files, which keep their own permission bits. */
  mode: number;
  source: ContextSource;
}

/** Something develop and `byre dockerfile` should tell the user; not an error. */
interface PlanNote {
  rule: string;
  message: string;
}

export interface BuildPlan {
  dockerfileInput: DockerfileInput;
  dockerfile: string;
  entries: ContextEntry[];
  /** Directories that must exist even when empty (COPY needs its source). */
  dirs: string[];
  agentCmd: string | null;
  agentContext: string;
  mcpJson: string;
  notes: PlanNote[];
}

interface PlanOptions {
  /** Texts of [[context]] `file` declarations, keyed by the path as declared. */
  contextFiles?: ReadonlyMap<string, string>;
  /** Files of each config-declared Claude Skill, read and validated, by name. */
  claudeSkillFiles?: ReadonlyMap<string, readonly ClaudeSkillFile[]>;
  /**
   * The project CA's certificate (PEM) when the project injects credentials
   * at the edge (adr/0070): baked after the project block, for the box's
   * clients to trust. A certificate only: its key was discarded when it was minted.
   */
  edgeCa?: string;
}

const DOCKERFILE_NAME = 'Dockerfile.generated';
/** The build context's directory of config-declared Claude Skills, inside the wiring (adr/0069). */
const CLAUDE_SKILLS_CONTEXT_DIR = `${WIRING_STAGED_DIR}/claude-skills`;
/** claude's discovery layout inside the directory its command adds. */
const CLAUDE_SKILLS_STAGE_DIR = `${CLAUDE_SKILLS_CONTEXT_DIR}/.claude/skills`;
const AGENT_CONTEXT_WARN_BYTES = 100_000;

/**
 * What a `--self-edit` session tells its agent (the launcher adds it to the
 * session context only while the store is mounted read-write): where its
 * config is, where the reference is, and that the user sees every change.
 */
const SELF_EDIT_NOTE = `## You may edit this box's byre config (--self-edit)

This session runs with byre's --self-edit: the project's byre store is mounted read-write at ${SELF_EDIT_DIR}. Its byre.config (TOML) is the config this box was built and launched from: the packages it installs (apt), its skills, mounts, ports, env, egress and more. Every key is documented in ${CONFIG_REFERENCE_PATH}.

- Edit ${SELF_EDIT_DIR}/byre.config only; it takes effect at the next \`byre develop\`, not in this box.
- Keep it valid TOML with only documented keys: a config that does not validate stops the next launch, naming the file and line.
- When the session ends, byre shows the user a diff of byre.config and lists every other file changed in the store. Tell the user what you changed and why.
`;

const EXECUTABLE = 0o755;
const REGULAR = 0o644;

const CHASSIS_SENTENCE =
  'Files the user sends from the host arrive in /inbox, owned by you. /inbox lives only as long as this container, so treat it as a hand-off point, not as storage.';

function locationOf(from: Sourced<unknown>['from'], key: string): Location {
  return { file: from.path ?? `(${from.kind} layer ${from.name})`, key };
}

/**
 * The project-relative form of a `files` source, or a refusal. Lexical only:
 * symlinks are checked when the file is staged.
 */
function projectRelativeSource(key: string, entry: Sourced<string>): string {
  const escapes = (why: string) =>
    new ByreError(`files entry "${key}" ${why}`, {
      rule: 'files.escapes-project',
      remedy: 'name a path inside the project, relative to its root (e.g. "./seed")',
      location: locationOf(entry.from, `files."${key}"`),
    });
  if (key === '') throw escapes('is empty');
  if (key.startsWith('/') || key.startsWith('~')) throw escapes(`is an absolute path (${key})`);
  const normalized = path.posix.normalize(key);
  if (normalized === '..' || normalized.startsWith('../')) {
    throw escapes(`reaches outside the project (${key})`);
  }
  return normalized;
}

function agentCmdScript(command: string): string {
  return `#!/bin/sh\nexec ${command} "$@"\n`;
}

function selectedAgent(config: EffectiveConfig, skills: readonly ResolvedSkill[]) {
  if (config.agent === null) return null;
  const name = config.agent.value;
  // The catalog resolves a bare name to a local package first, then byre/<name>.
  const skill = skills.find((s) => s.id === name) ?? skills.find((s) => s.id === `byre/${name}`);
  if (skill?.agent == null) {
    throw new ByreError(`agent "${name}" is not an enabled skill with an [agent] command`, {
      rule: 'agent.not-enabled',
      remedy: 'enable an agent skill, or set agent = "none"',
      location: locationOf(config.agent.from, 'agent'),
    });
  }
  return skill.agent;
}

function trimTrailingSpace(text: string): string {
  return text.replace(/\s+$/, '');
}

function renderAgentContext(
  config: EffectiveConfig,
  skills: readonly ResolvedSkill[],
  contextFiles: ReadonlyMap<string, string>,
): string {
  const apt = config.apt.map((a) => a.value);
  const declared = config.context.map((entry) => {
    const spec = entry.value;
    if ('text' in spec) return spec.text;
    const text = contextFiles.get(spec.file);
    if (text === undefined) {
      throw new ByreError(`context "${spec.name}": file ${spec.file} was not read`, {
        rule: 'context.file-missing',
        remedy: `create ${spec.file}, or remove the [[context]] entry "${spec.name}"`,
        location: locationOf(entry.from, `context.${spec.name}`),
      });
    }
    return text;
  });
  const parts = [
    CHASSIS_SENTENCE,
    `Box base image: ${config.base.value}.`,
    ...(apt.length > 0 ? [`The box config additionally provisions: ${apt.join(', ')} (apt).`] : []),
    ...skills.flatMap((s) => (s.context === null ? [] : [s.context])),
    ...declared,
  ]
    .map(trimTrailingSpace)
    .filter((part) => part !== '');
  return `${parts.join('\n\n')}\n`;
}

type McpEntry =
  | { type: 'stdio'; command: string; args: string[]; x_byre_env: string[] }
  | { type: 'http'; url: string; headers?: Record<string, string>; x_byre_env: string[] };

function mcpEntry(spec: McpSpec): McpEntry {
  if (spec.command !== undefined) {
    const [command = '', ...args] = spec.command;
    return { type: 'stdio', command, args, x_byre_env: [...spec.env] };
  }
  const headerNames = Object.keys(spec.headers).sort(compareStrings);
  return {
    type: 'http',
    url: spec.url ?? '',
    ...(headerNames.length === 0
      ? {}
      : { headers: Object.fromEntries(headerNames.map((h) => [h, spec.headers[h] ?? ''])) }),
    x_byre_env: [...spec.env],
  };
}

/** /etc/byre/mcp.json: config ∪ skill servers minus closures, keyed and sorted by name. */
function renderMcpJson(config: EffectiveConfig, skills: readonly ResolvedSkill[]): string {
  const closed = new Set(config.mcpClosed.map((c) => c.value));
  const declared = [...config.mcp.map((m) => m.value), ...skills.flatMap((s) => s.mcp)];
  const byName = new Map<string, McpSpec>();
  for (const spec of declared) {
    if (closed.has(spec.name)) continue;
    if (byName.has(spec.name)) {
      throw new ByreError(`MCP server "${spec.name}" is declared twice`, {
        rule: 'mcp.duplicate-name',
        remedy: 'rename one declaration, or close the unwanted one with "!name"',
      });
    }
    byName.set(spec.name, spec);
  }
  const names = [...byName.keys()].sort(compareStrings);
  const servers = Object.fromEntries(names.map((n) => [n, mcpEntry(byName.get(n) as McpSpec)]));
  return `${JSON.stringify({ mcpServers: servers }, null, 2)}\n`;
}

interface ProjectFile {
  key: string;
  src: string;
  copy: StagedCopy;
  location: Location;
}

function projectFiles(config: EffectiveConfig): ProjectFile[] {
  return Object.keys(config.files)
    .map((key) => {
      const entry = config.files[key] as Sourced<string>;
      const src = projectRelativeSource(key, entry);
      return {
        key,
        src,
        copy: { staged: stagedContextPath(path.posix.join('files', src)), dest: entry.value },
        location: locationOf(entry.from, `files."${key}"`),
      };
    })
    .sort((a, b) => compareStrings(a.copy.staged, b.copy.staged) || compareStrings(a.key, b.key));
}

/** `[[context]]` files by the same size tiers a block's inline text is warned by. */
function contextFileNotes(
  config: EffectiveConfig,
  contextFiles: ReadonlyMap<string, string>,
): PlanNote[] {
  return config.context.flatMap((entry) => {
    const spec = entry.value;
    const text = 'file' in spec ? contextFiles.get(spec.file) : undefined;
    if (text === undefined || !('file' in spec)) return [];
    const message = contextSizeWarning(
      `context "${spec.name}" (${spec.file})`,
      Buffer.byteLength(text, 'utf8'),
    );
    return message === null ? [] : [{ rule: 'context.file-large', message }];
  });
}

function guardNotes(files: readonly ProjectFile[], input: DockerfileInput): PlanNote[] {
  return files.flatMap(({ key, copy }) => [
    ...guardedPathCollisions([copy.dest], input.guard, input.credentialGate, input.edge).map(
      (guarded) => ({
        rule: 'files.guarded-path',
        message: `files entry "${key}" targets ${guarded}, a path byre guards; byre's copy takes precedence`,
      }),
    ),
    ...wiringPathCollisions([copy.dest], input.agent !== null).map((wired) => ({
      rule: 'files.wiring-path',
      message: `files entry "${key}" targets ${wired}, where byre puts the box's wiring after the project block; byre's copy takes precedence`,
    })),
  ]);
}

/**
 * The merged Claude Skill set (config entries, then skill-carried ones not
 * closed by config), staged at claude-skills/.claude/skills/<name>/: claude's
 * own discovery layout under the directory its command adds (--add-dir).
 */
function claudeSkillEntries(
  config: EffectiveConfig,
  skills: readonly ResolvedSkill[],
  configFiles: ReadonlyMap<string, readonly ClaudeSkillFile[]>,
): ContextEntry[] {
  const closed = new Set(config.claudeSkillsClosed.map((c) => c.value));
  const declared: {
    name: string;
    files: readonly ClaudeSkillFile[] | undefined;
    from: Location;
  }[] = [
    ...config.claudeSkills.map((c) => ({
      name: c.value.name,
      files: configFiles.get(c.value.name),
      from: locationOf(c.from, `claude_skills.${c.value.name}`),
    })),
    ...skills.flatMap((s) =>
      s.claudeSkills
        .filter((c) => !closed.has(c.name))
        .map((c) => ({
          name: c.name,
          files: s.claudeSkillFiles?.[c.name],
          from: { file: s.meta?.dir ?? `skill ${s.id}`, key: `claude_skills.${c.name}` },
        })),
    ),
  ];
  return declared.flatMap(({ name, files, from }) => {
    if (files === undefined) {
      throw new ByreError(`claude skill "${name}" was not read`, {
        rule: 'claude-skill.not-read',
        remedy: 'report this to byre',
        location: from,
      });
    }
    return files.map((f) =>
      bytes(
        path.posix.join(CLAUDE_SKILLS_STAGE_DIR, name, f.rel),
        f.content,
        f.executable === true ? EXECUTABLE : REGULAR,
      ),
    );
  });
}

function bytes(entryPath: string, content: string | Uint8Array, mode = REGULAR): ContextEntry {
  return { path: entryPath, mode, source: { kind: 'bytes', bytes: content } };
}

/**
 * An entry whose bytes are rendered the first time they are read (then
 * kept): `byre dockerfile` plans the whole context but stages none of it,
 * and need not render the config reference (adr/0041).
 */
function renderedOnRead(entryPath: string, render: () => string): ContextEntry {
  let rendered: string | undefined;
  return {
    path: entryPath,
    mode: REGULAR,
    source: {
      kind: 'bytes',
      get bytes(): string {
        rendered ??= render();
        return rendered;
      },
    },
  };
}

export function planBuild(
  config: EffectiveConfig,
  skills: readonly ResolvedSkill[],
  projectDir: string,
  options: PlanOptions = {},
): BuildPlan {
  const agent = selectedAgent(config, skills);
  const files = projectFiles(config);
  const dockerfileInput: DockerfileInput = {
    base: config.base.value,
    dockerfilePre: config.dockerfilePre.map((l) => l.value),
    skills,
    agent: agent === null ? null : { command: agent.command },
    volumeTargets: [
      ...config.volumes.map((v) => v.value.target),
      ...skills.flatMap((s) => s.volumes.map((v) => v.target)),
    ],
    env: Object.fromEntries(Object.entries(config.env).map(([k, v]) => [k, v.value])),
    files: files.map((f) => f.copy),
    apt: config.apt.map((a) => a.value),
    dockerfilePost: config.dockerfilePost.map((l) => l.value),
    guard: postureGuardFor(skills),
    // An injecting box waits at its edge gate instead (adr/0084): nothing is delivered for it.
    credentialGate: deliveredCredentialRows(config).length > 0,
    edge: options.edgeCa !== undefined,
  };
  const dockerfile = renderDockerfile(dockerfileInput);
  const agentCmd = agent === null ? null : agentCmdScript(agent.command);
  const agentContext = renderAgentContext(config, skills, options.contextFiles ?? new Map());
  const mcpJson = renderMcpJson(config, skills);
  const chassis = chassisFiles();

  const entries: ContextEntry[] = [
    bytes(DOCKERFILE_NAME, dockerfile),
    bytes('byre-launch', chassis.launcher, EXECUTABLE),
    bytes('byre-profile-env.sh', chassis.profileEnv),
    bytes('byre-ensure-node', chassis.ensureNode, EXECUTABLE),
    ...(dockerfileInput.credentialGate === true
      ? [bytes(CREDENTIAL_GATE_STAGED, CREDENTIAL_GATE_TEXT)]
      : []),
    ...(options.edgeCa === undefined
      ? []
      : [bytes(EDGE_CA_STAGED, options.edgeCa), bytes(EDGE_GATE_STAGED, EDGE_GATE_TEXT)]),
    ...(agentCmd === null
      ? []
      : [
          bytes('agent-cmd', agentCmd, EXECUTABLE),
          bytes('self-edit.md', SELF_EDIT_NOTE),
          renderedOnRead('config-reference.md', renderConfigDoc),
        ]),
    // The wiring, one directory the Dockerfile copies last (adr/0069). The
    // context is staged only with an agent, which is the only reader of it.
    ...(agentCmd === null ? [] : [bytes(`${WIRING_STAGED_DIR}/agent-context.md`, agentContext)]),
    bytes(`${WIRING_STAGED_DIR}/mcp.json`, mcpJson),
    ...skills.flatMap((s) =>
      s.build.files.map((f) =>
        bytes(stagedContextPath(f.staged), f.content, f.executable ? EXECUTABLE : REGULAR),
      ),
    ),
    ...claudeSkillEntries(config, skills, options.claudeSkillFiles ?? new Map()),
    ...files.map(({ key, src, copy, location }) => ({
      path: copy.staged,
      mode: REGULAR,
      source: {
        kind: 'project-file' as const,
        key,
        src,
        hostPath: path.join(projectDir, src),
        location,
      },
    })),
  ];

  const notes = [
    ...guardNotes(files, dockerfileInput),
    ...contextFileNotes(config, options.contextFiles ?? new Map()),
  ];
  const contextBytes = Buffer.byteLength(agentContext, 'utf8');
  if (contextBytes > AGENT_CONTEXT_WARN_BYTES) {
    notes.push({
      rule: 'context.large',
      message: `the baked agent context is ${contextBytes} bytes; agents that take it as an argument will truncate it past ${AGENT_CONTEXT_WARN_BYTES}`,
    });
  }

  return {
    dockerfileInput,
    dockerfile,
    entries,
    dirs: [CLAUDE_SKILLS_STAGE_DIR],
    agentCmd,
    agentContext,
    mcpJson,
    notes,
  };
}
