// Rules for a skill.toml body: the config rules it shares with layers
// (renamed skill.* and relocated to the skill's keys) plus the skill-only
// ones for build, runtime, [agent] and wiring. Pure.
// Over 500 lines: one rule list over one manifest shape, each rule a short pure function.

import {
  CONTROL,
  ENV_KEY,
  isHostPath,
  isContainedRelative,
  namesWholeDirectory,
  normalizeTarget,
  PACKAGE_REF,
  WIRING_NAME,
} from '../../config/grammar.js';
import type { PathSegment } from '../../config/locate.js';
import {
  checkApt,
  checkEgress,
  checkEnv,
  checkMcp,
  checkMounts,
  checkTargetCollisions,
  checkVolumes,
  type Finding,
} from '../../config/rules/index.js';
import { finding, q } from '../../config/rules/finding.js';
import type { RawLayer } from '../../config/schema.js';
import {
  MAX_CONTAINMENT_CHARS,
  MAX_CONTEXT_BYTES,
  NETWORK_POSTURE,
  NODE_MAJOR,
  type RawSkill,
} from './schema.js';

/** Config rules speak `config.*`; inside a manifest the same rule is `skill.*`. */
export function asSkillFinding(
  f: Finding,
  prefix: PathSegment[],
  rename: (p: PathSegment[]) => PathSegment[] = (p) => p,
): Finding {
  const rule = f.rule.startsWith('config.') ? `skill.${f.rule.slice('config.'.length)}` : f.rule;
  return { ...f, rule, path: [...prefix, ...rename(f.path)] };
}

/** An absolute path with no control characters. */
function isAbsolute(p: string): boolean {
  return p.startsWith('/') && !CONTROL.test(p);
}

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
    // A skill's env reaches the box as -e argv, not as an image ENV line.
    ...checkEnv(layer, { baked: false }),
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

/** `[build] node` is a node major byre-ensure-node can take (adr/0062). */
function nodeFindings(raw: RawSkill): Finding[] {
  const node = raw.build?.node;
  if (node === undefined || (node >= NODE_MAJOR.min && node <= NODE_MAJOR.max)) return [];
  return [
    finding(
      'skill.node-invalid',
      ['build', 'node'],
      `node = ${node} is not a node major version (${NODE_MAJOR.min} to ${NODE_MAJOR.max})`,
      'write the major the skill needs as an integer, e.g. node = 22',
    ),
  ];
}

function buildFindings(raw: RawSkill): Finding[] {
  const out: Finding[] = [...nodeFindings(raw)];
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
  // A raw build line may span lines (a heredoc, a backslash continuation), as
  // config's dockerfile_pre/post may: it is never parsed, and a newline gives
  // it nothing a second entry would not. A carriage return hides text on a
  // terminal, and a CRLF file's multi-line string keeps its CRs (adr/0059).
  (raw.build?.dockerfile ?? []).forEach((line, i) => {
    if (line.includes('\r')) {
      out.push(
        finding(
          'skill.dockerfile-line-invalid',
          ['build', 'dockerfile', i],
          'a raw build line must not contain a carriage return',
          'save skill.toml with LF line endings (a multi-line string keeps CRLF), or remove the \\r',
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
    if (doc.trim() === '') {
      out.push(
        finding(
          'skill.env-docs-empty',
          ['runtime', 'env_docs', key],
          `env_docs ${q(key)} carries no guidance`,
          `say in one line what ${key} is for and where its value comes from, or remove the entry`,
        ),
      );
    } else if (!ENV_KEY.test(key) || CONTROL.test(doc)) {
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
  if (prefs !== undefined && agent.state === undefined) {
    out.push(
      finding(
        'skill.agent-prefs-without-state',
        ['agent', 'prefs'],
        "[agent.prefs] seeds the agent's state volume, but [agent] names no state",
        'add state = "<the state volume\'s name>" to [agent], or remove [agent.prefs]',
      ),
    );
  }
  if (prefs !== undefined) {
    if (prefs.from === undefined || !isHostPath(prefs.from)) {
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
      } else if (namesWholeDirectory(f)) {
        // Seeding all of `from` would copy every host secret the tool keeps there.
        out.push(
          finding(
            'skill.agent-prefs-whole-source',
            ['agent', 'prefs', 'files', i],
            `[agent.prefs] file ${q(f)} names the whole of from, not a file in it`,
            'list the preference files one by one, such as "settings.json"',
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

export const SKILL_RULES: readonly ((raw: RawSkill) => Finding[])[] = [
  removalMarkers,
  sharedRuleFindings,
  buildFindings,
  runtimeFindings,
  agentFindings,
  wiringFindings,
];
