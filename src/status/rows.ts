// The status page's rows, in one fixed order, from the status data. Pure
// text: values are raw (the row funnel escapes them). Rows tagged with a tier
// appear only in it; grants, mounts, volumes, skills, ports and reserved keys
// get one row each in every tier, so none is ever elided.
// Over 500 lines: one row function per page section, in the page's order.

import { SELF_EDIT_DIR } from '../gen/box-layout.js';
import { shellQuote } from '../output/shell-quote.js';
import type { StatusData } from './data-schema.js';
import { deniedRows } from './denials.js';
import type { StatusRow, StatusTier } from './layout.js';

export type ModelRow = StatusRow & {
  /** Only in this tier; absent means every text tier. */
  tier?: StatusTier;
};

const NONE = 'none';

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

type RawRunArg = StatusData['raw_run_args'][number];

/** Who set a raw entry, as its rows and banner lines say it. */
export function rawRunArgSource(r: RawRunArg): string {
  return `run_args: ${r.source}`;
}

/** A raw entry as the containment line names it: its tokens, then what it gives. */
export function rawRunArgHole(r: RawRunArg): string {
  return `${shellQuote(r.argv)}: ${r.what}  (${rawRunArgSource(r)})`;
}

function rawRunArgRow(r: RawRunArg): string {
  const what =
    r.effect === 'inert'
      ? 'widens nothing'
      : r.effect === 'unknown'
        ? `not introspected; passed through as written${r.what === '' ? '' : ` (${r.what})`}`
        : `${r.effect === 'hole' ? '🛑 ' : ''}${r.what}`;
  return `${shellQuote(r.argv)} — ${what}  (${r.source})`;
}

function shortId(id: string): string {
  return id.slice(0, 12);
}

/** One row per value: the first labelled, the rest continuing it. */
function listRows(
  label: string,
  values: readonly string[],
  empty: string | null,
  extra: Partial<ModelRow> = {},
): ModelRow[] {
  if (values.length === 0) return empty === null ? [] : [{ label, value: empty, ...extra }];
  return values.map((value, i) => ({
    label: i === 0 ? label : '',
    value,
    ...(i === 0 ? {} : { continuation: true }),
    ...extra,
  }));
}

function padCells(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - [...text].length));
}

/** The Network row's value (also develop's banner network line). */
export function networkValue(n: StatusData['network']): string {
  if (n.posture === 'unknown') return 'unknown  (skills unresolved)';
  if (n.posture === 'open') {
    return n.degraded_by.length === 0
      ? 'open'
      : `open  (declared; ${n.degraded_by.join(', ')} present — not guaranteed)`;
  }
  const skill = n.posture_skill === null ? '' : `skill: ${n.posture_skill}`;
  if (n.degraded_by.length > 0) {
    return `${n.posture}  (declared; ${n.degraded_by.join(', ')} present — not guaranteed${skill === '' ? '' : `; ${skill}`})`;
  }
  if (n.posture === 'open-denylist') {
    const blocked = new Set(n.closed.map((c) => c.entry.replace(/^!/, '').split(':')[0])).size;
    return `open-denylist  (open network, ${plural(blocked, 'host')} blocked${skill === '' ? '' : `; ${skill}`})`;
  }
  return skill === '' ? n.posture : `${n.posture}  (${skill})`;
}

/** The Privileges row's value: the capabilities the box holds, and that exec gains none. */
function privilegesValue(p: StatusData['privileges']): string {
  if (p.capabilities === null) return 'unknown  (skills unresolved)';
  const held =
    p.capabilities.length === 0
      ? 'no capabilities'
      : `capabilities ${p.capabilities.map((c) => `${c.name} (skill: ${c.skill})`).join(', ')}, every other dropped`;
  const claim = `${held}; setuid and file capabilities gain nothing`;
  return p.degraded_by.length === 0
    ? claim
    : `${claim}  (declared; ${p.degraded_by.join(', ')} present — not guaranteed)`;
}

/** `host` for port 443 (how a user writes it in `egress`), else `host:port`. */
function writtenEgress(e: { host: string; port: number }): string {
  return e.port === 443 ? e.host : `${e.host}:${e.port}`;
}

function egressRows(d: StatusData): ModelRow[] {
  const n = d.network;
  const allowlist = n.posture === 'deny-by-default';
  const values = n.egress.map((e) => {
    const head = `${e.host}:${e.port}  (${e.source.join(', ')})`;
    if (e.closed_by !== null) return `${head} — closed by config '${e.closed_by}'`;
    if (!allowlist) return `${head} — unenforced, network open`;
    if (e.resolution === 'not_resolved') return `${head} — allowed, not resolved yet`;
    return head;
  });
  // Under the allowlist the row always shows: an empty list is the claim
  // "this box reaches no host", and the user needs the way to open one.
  if (!allowlist) return listRows('Egress', values, null);
  const reaches = n.egress.some((e) => e.closed_by === null);
  const rows = listRows(
    'Egress',
    reaches ? values : ['none — the box reaches no host', ...values],
    null,
  );
  const bySource = new Map<string, string[]>();
  for (const o of n.offered) {
    const source = o.source.join(', ');
    bySource.set(source, [...(bySource.get(source) ?? []), writtenEgress(o)]);
  }
  for (const [source, hosts] of bySource) {
    rows.push({
      label: '',
      continuation: true,
      value: `offered, not open: ${hosts.join(', ')}  (${source})`,
    });
  }
  const example = n.offered[0];
  rows.push({
    label: '',
    continuation: true,
    kind: 'never-truncate',
    value: `to open a host: byre config (Egress), or add it to egress in ${d.project_config}${example === undefined ? '' : ` (egress = ["${writtenEgress(example)}"])`}`,
  });
  return rows;
}

const CLOSURE_STATE: Record<StatusData['network']['closed'][number]['state'], string> = {
  enforced: 'enforced: outside the allowlist',
  blocked: 'blocked by the denylist',
  unenforced: 'unenforced, network open',
  unknown: 'unknown: skills unresolved',
};

function closedValue(d: StatusData, c: StatusData['network']['closed'][number]): string {
  const guarantee =
    (c.state === 'enforced' || c.state === 'blocked') && d.network.degraded_by.length > 0
      ? ' (not guaranteed)'
      : '';
  return `${c.entry}  (${c.source}) — ${CLOSURE_STATE[c.state]}${guarantee}`;
}

function containerRows(d: StatusData): ModelRow[] {
  const c = d.container;
  let value: string;
  switch (c.state) {
    case 'not_running':
      value = 'not running';
      break;
    case 'unknown':
      value = `unknown — ${c.error ?? 'no engine answered'}`;
      break;
    case 'running': {
      const id = shortId(c.id ?? '');
      value = `running (${id}) on ${c.engine ?? '?'}`;
      if (c.client_label_unreadable) {
        value += ` — its byre.client label is not a pid, so byre cannot tell who started it or whether that byre still runs; stop it with \`${c.engine ?? 'docker'} stop ${id}\``;
      } else if (c.outside_byre) {
        value += ` — started outside byre (no byre.client pid: e.g. by hand from the command byre dockerrun prints); stop it with \`${c.engine ?? 'docker'} stop ${id}\``;
      } else if (c.orphaned) {
        value += ` — orphaned: the byre that started it${c.client_pid === null ? '' : ` (pid ${c.client_pid})`} is gone; stop it with \`${c.engine ?? 'docker'} stop ${id}\``;
      }
    }
  }
  const rows: ModelRow[] = [{ label: 'Container', value, kind: 'never-truncate' }];
  const launch = d.launch;
  if (launch.state === 'verified' && launch.record !== null) {
    rows.push({
      label: '',
      continuation: true,
      kind: 'never-truncate',
      value: `↳ the grant rows above describe THIS box (launch record ${launch.record.slice(0, 12)}). Other rows describe the current config.`,
    });
  } else if (launch.state !== 'none') {
    rows.push({
      label: '',
      continuation: true,
      kind: 'never-truncate',
      value: `⚠ ${launch.note ?? launch.state}; the rows above describe the CURRENT CONFIG, not necessarily this box.`,
    });
  }
  return rows;
}

function hostEnvRows(d: StatusData): ModelRow[] {
  if (d.host_env.length === 0) return [];
  const delivered = d.host_env.filter((e) => e.state === 'delivered');
  const notes = d.host_env.flatMap((e) => {
    switch (e.state) {
      case 'empty':
        return [`${e.key} NOT passed: ${e.source} is empty on this host`];
      case 'overridden':
        return [`${e.key} overridden by [env]`];
      default:
        return [];
    }
  });
  const head = `${plural(delivered.length, 'key')} from host${delivered.length === 0 ? '' : `: ${delivered.map((e) => e.key).join(', ')}`}`;
  return [
    { label: 'Host env', value: `${head}  (env_from_host; --full for sources)`, tier: 'default' },
    ...notes.map((value): ModelRow => ({ label: '', continuation: true, value, tier: 'default' })),
    ...listRows(
      'Host env',
      d.host_env.map(
        (e) => `${e.key} <- ${e.source === '' ? '""' : e.source}  (${e.state}; ${e.layer})`,
      ),
      null,
      { tier: 'full' },
    ),
  ];
}

/** One row per server, each followed by what it lacks: an unset env var, a shut host, known outbound. */
function mcpRows(d: StatusData): ModelRow[] {
  const rows: ModelRow[] = [];
  for (const m of d.mcp_servers) {
    rows.push({
      label: rows.length === 0 ? 'MCP servers' : '',
      ...(rows.length === 0 ? {} : { continuation: true }),
      // Declared egress is on the row whatever the posture: an open network's
      // Egress rows leave MCP egress out, and a later firewall opens it (adr/0059).
      value: `${m.name}  ${m.target}  (${[
        m.source,
        ...(m.egress.length === 0 ? [] : [`+egress ${m.egress.join(', ')}`]),
        ...(m.env.length === 0 ? [] : [`reads ${m.env.map((e) => e.key).join(', ')}`]),
      ].join('; ')})`,
    });
    const more = (value: string, loud: boolean): void => {
      rows.push({
        label: '',
        continuation: true,
        value,
        ...(loud ? { kind: 'never-truncate' as const } : {}),
      });
    };
    if (m.not_operational !== null) more(`↳ NOT operational: ${m.not_operational}`, true);
    for (const e of m.env) {
      if (e.provided_by !== null) more(`↳ env ${e.key}: provided by ${e.provided_by}`, false);
      else more(`↳ env ${e.key}: NOT provided — ${e.missing ?? 'nothing sets it'}`, true);
    }
    if (m.outbound_unknown !== null) more(`↳ outbound unknown: ${m.outbound_unknown}`, true);
  }
  return rows;
}

/** The full tier's instruction text, one row per line of it (never a literal \n). */
function instructionTextRows(d: StatusData): ModelRow[] {
  const rows: ModelRow[] = [];
  for (const i of d.instructions) {
    const lines =
      i.text === null
        ? [i.file === null ? '' : `file ${i.file}`]
        : i.text.split(/\r?\n/).filter((line) => line.trim() !== '');
    lines.forEach((line, n) => {
      rows.push({
        label: rows.length === 0 ? 'Instructions' : '',
        ...(rows.length === 0 ? {} : { continuation: true }),
        value: n === 0 ? `${i.name}  (${i.source}): ${line}` : `  ${line}`,
        tier: 'full',
      });
    });
    if (lines.length === 0) {
      rows.push({
        label: rows.length === 0 ? 'Instructions' : '',
        ...(rows.length === 0 ? {} : { continuation: true }),
        value: `${i.name}  (${i.source}):`,
        tier: 'full',
      });
    }
  }
  return rows;
}

const CREDENTIAL_STATE: Record<StatusData['credentials'][number]['state'], string> = {
  sealed: '',
  overridden: '; overridden by [env], not delivered',
  delivered: '; delivered',
  not_delivered: '; NOT delivered',
};

/** One grant row per credential ("KEY <- encrypted  (project)"), then how they travel. */
function credentialRowsOf(d: StatusData): ModelRow[] {
  const rows = listRows(
    'Credentials',
    d.credentials.map(
      (c) => `${c.key} <- ${c.kind ?? 'credential'}  (${c.layer}${CREDENTIAL_STATE[c.state]})`,
    ),
    null,
  );
  if (d.credential_delivery !== null) {
    rows.push({
      label: '',
      continuation: true,
      value: d.credential_delivery,
      kind: 'never-truncate',
    });
  }
  return rows;
}

/** Every row of the page, in the page's fixed order. */
export function statusRows(d: StatusData): ModelRow[] {
  return [
    ...identityRows(d),
    ...placeRows(d),
    ...networkSectionRows(d),
    ...hostAccessRows(d),
    ...skillRows(d),
    ...volumeRows(d),
    ...agentContextRows(d),
    ...envSectionRows(d),
    ...grantAndRawRows(d),
    ...containerRows(d),
    ...worktreeRows(d),
    ...listRows('Next launch', d.changes_on_next_launch, null),
  ];
}

/** Which project, agent and template, and the config files that say so. */
function identityRows(d: StatusData): ModelRow[] {
  const rows: ModelRow[] = [
    { label: 'Project id', value: d.project_id },
    { label: 'Agent', value: d.agent === null ? '(none)' : `${d.agent.id}  (${d.agent.source})` },
    {
      label: 'Template',
      value:
        d.template === null
          ? '(none)'
          : `${d.template.id}  (${d.template.bundled ? 'bundled' : d.template.source})`,
    },
  ];
  if (d.extends.length > 0)
    rows.push({ label: 'Extends', value: [...d.extends, 'project'].join(' -> ') });
  rows.push(...listRows('Config files', d.config_files.map(configFileValue), null));
  if (d.preset_note !== null)
    rows.push({ label: 'Preset', value: d.preset_note, kind: 'never-truncate' });
  return rows;
}

function configFileValue(f: StatusData['config_files'][number]): string {
  const what = f.kind === 'template' || f.kind === 'layer' ? `${f.kind} ${f.name}` : f.kind;
  if (f.path === null) return `(inside byre or its package)  (${what})`;
  return `${f.path}  (${what}${f.present ? '' : '; not created yet'})`;
}

/** The Engine row's value: its name and how it runs, or why there is none. */
function engineValue(e: StatusData['engine']): string {
  if (e.name === null) return `not available — ${e.error ?? 'no engine answered'}`;
  const q = [e.rootless === true ? 'rootless' : null, e.keep_id === true ? 'keep-id' : null];
  const qual = q.filter((x): x is string => x !== null);
  return qual.length === 0 ? e.name : `${e.name}  (${qual.join(', ')})`;
}

/** Where the box runs: engine, project mount, refusals, worktree, the launched image. */
function placeRows(d: StatusData): ModelRow[] {
  const rows: ModelRow[] = [
    { label: 'Engine', value: engineValue(d.engine) },
    { label: 'Project', value: `${d.workdir} -> /workspace  (rw)` },
    ...listRows(
      'Refused',
      d.refused.map((r) => `${r.message}  [${r.rule}]`),
      null,
      { kind: 'never-truncate' },
    ),
  ];
  if (d.worktree_of !== null) rows.push({ label: 'Worktree of', value: d.worktree_of });
  if (d.worktree_base !== null) {
    rows.push({
      label: 'Worktree base',
      value: `${d.worktree_base.value}  (${d.worktree_base.source}; where byre worktree puts new worktrees)`,
    });
  }
  const image = d.launch.image;
  if (d.launch.state === 'verified' && image !== null)
    rows.push({
      label: 'Image',
      value: `${image.tag}  ${imageDigest(image)}  base ${image.base}${image.wiring === null ? '' : `  wiring bound read-only from ${image.wiring}`}`,
    });
  return rows;
}

/** The launched image's short digest, or why it is unknown. */
function imageDigest(image: NonNullable<StatusData['launch']['image']>): string {
  return image.digest === ''
    ? `digest unknown${image.digest_error === null ? '' : ` (${image.digest_error})`}`
    : image.digest.replace(/^sha256:/, '').slice(0, 12);
}

/** Network posture, the holes in containment, egress and closures. */
function networkSectionRows(d: StatusData): ModelRow[] {
  return [
    {
      label: 'Network',
      value: networkValue(d.network),
      kind: d.network.degraded_by.length > 0 ? 'never-truncate' : 'normal',
    },
    ...listRows('Containment', containmentHoles(d), null, { kind: 'never-truncate' }),
    ...egressRows(d),
    ...listRows(
      'Closed',
      d.network.closed.map((c) => closedValue(d, c)),
      null,
    ),
    ...deniedRows(d),
    ...edgeRows(d),
  ];
}

/** Whether the running box's edge is up, and what it refused, beside the wall's denials (adr/0070). */
function edgeRows(d: StatusData): ModelRow[] {
  if (d.edge === null) return [];
  const rows: ModelRow[] = [{ label: 'Edge', value: d.edge.text }];
  if (d.edge.refused !== null) rows.push({ label: '', continuation: true, value: d.edge.refused });
  return rows;
}

/** Every hole in containment: skill-declared, managed-path shadows, raw run args. */
function containmentHoles(d: StatusData): string[] {
  return [
    ...d.containments.map((c) => `🛑 HOLE -- ${c.text}  (skill: ${c.skill})`),
    ...d.managed_path_shadows.map(
      (s) =>
        `🛑 HOLE -- ${s.kind} over ${s.target} shadows byre-managed ${s.shadows}  (${s.source})`,
    ),
    ...d.raw_run_args
      .filter((r) => r.effect === 'hole')
      .map((r) => `🛑 HOLE -- ${rawRunArgHole(r)}`),
  ];
}

/** What the box may do to the host: privileges, ports, host mounts, self-edit. */
function hostAccessRows(d: StatusData): ModelRow[] {
  const rows: ModelRow[] = [
    {
      label: 'Privileges',
      value: privilegesValue(d.privileges),
      kind: d.privileges.degraded_by.length > 0 ? 'never-truncate' : 'normal',
    },
    ...listRows(
      'Ports',
      [
        ...d.ports.map((p) => `${p.interface}:${p.host} -> ${p.container}  (${p.source})`),
        ...d.raw_run_args
          .filter((r) => r.port !== null)
          .map((r) => `${shellQuote(r.argv)}  (${rawRunArgSource(r)})`),
      ],
      NONE,
    ),
    ...listRows('Host mounts', hostMountValues(d), NONE),
  ];
  if (d.self_edit) {
    const bind = d.binds.find((b) => b.target === SELF_EDIT_DIR);
    rows.push({
      label: 'Self-edit',
      value: `${bind?.host ?? 'the project’s store'} -> ${SELF_EDIT_DIR}  (rw: the agent can rewrite this project’s config; changes apply at the next develop)`,
      kind: 'never-truncate',
    });
  }
  return rows;
}

/** Configured binds, then the mounts raw run args add. */
function hostMountValues(d: StatusData): string[] {
  return [
    ...d.binds.map(
      (b) =>
        `${b.host} -> ${b.target}  (${b.mode}${b.disabled ? ', disabled' : ''})  (${b.source})`,
    ),
    ...d.raw_run_args.flatMap((r) =>
      r.mount === null
        ? []
        : [`${r.mount.host} -> ${r.mount.target}  (${r.mount.mode})  (${rawRunArgSource(r)})`],
    ),
  ];
}

/** One row per skill, ids padded to one column. */
function skillRows(d: StatusData): ModelRow[] {
  const idWidth = Math.max(0, ...d.skills.map((s) => [...s.id].length));
  return listRows(
    'Skills',
    d.skills.map(
      (s) =>
        `${padCells(s.id, idWidth)}  ${s.provenance}${s.version === null ? '' : ` ${s.version}`}`,
    ),
    d.skill_error === null ? NONE : `unresolved — ${d.skill_error}`,
  );
}

function volumeValue(v: StatusData['volumes'][number]): string {
  return `${v.name} -> ${v.target}${v.sharing === 'exclusive' ? '  (exclusive)' : ''}  (${v.source})`;
}

/** Project state and cache volumes, then machine-wide ones. */
function volumeRows(d: StatusData): ModelRow[] {
  const project = d.volumes.filter((v) => v.scope === 'project');
  return [
    ...listRows('State vols', project.filter((v) => v.role === 'state').map(volumeValue), NONE),
    ...listRows('Cache vols', project.filter((v) => v.role === 'cache').map(volumeValue), NONE),
    ...listRows(
      'Shared vols',
      d.volumes
        .filter((v) => v.scope === 'machine')
        .map((v) => `${volumeValue(v)}  (machine-wide, all your projects)`),
      null,
    ),
  ];
}

/** A loud continuation line saying how a list reaches the agent, when it does. */
function deliveryRows(delivery: string | null): ModelRow[] {
  return delivery === null
    ? []
    : [{ label: '', continuation: true, value: delivery, kind: 'never-truncate' }];
}

/** What the agent is given to read: MCP servers, Claude Skills, instructions. */
function agentContextRows(d: StatusData): ModelRow[] {
  return [
    ...mcpRows(d),
    ...deliveryRows(d.mcp_delivery),
    ...listRows(
      'MCP closed',
      d.mcp_closed.map((c) => `!${c.name}  (${c.source})`),
      null,
    ),
    ...listRows(
      'Claude Skills',
      d.claude_skills.map((c) => `${c.name}  ${c.path}  (${c.source})`),
      null,
    ),
    ...deliveryRows(d.claude_skills_delivery),
    ...listRows(
      'CS closed',
      d.claude_skills_closed.map((c) => `!${c.name}  (${c.source})`),
      null,
    ),
    ...instructionRows(d),
  ];
}

/** The default tier's one-line summary of instruction blocks, the full tier's text. */
function instructionRows(d: StatusData): ModelRow[] {
  if (d.instructions.length === 0) return [];
  return [
    {
      label: 'Instructions',
      value: `${plural(d.instructions.length, 'block')}: ${d.instructions.map((i) => i.name).join(', ')}  (--full for the text)`,
      tier: 'default',
    },
    ...instructionTextRows(d),
    ...deliveryRows(d.instructions_delivery),
  ];
}

/**
 * One row per credential injected at the edge, from the config; the full
 * tier adds how each host gets it. Whether the edge is up is not here.
 */
function injectionRows(d: StatusData): ModelRow[] {
  return d.injections.flatMap((inj, i): ModelRow[] => {
    const head = {
      label: i === 0 ? 'Injected' : '',
      ...(i === 0 ? {} : { continuation: true }),
      value: `${inj.text}  (${inj.layer})`,
      // Where a secret goes is a disclosure: shown whole, as containment is.
      kind: 'never-truncate' as const,
    };
    return [
      { ...head, tier: 'default' },
      { ...head, value: `${head.value}: ${inj.detail}`, tier: 'full' },
    ];
  });
}

/** Environment: from the host, credentials, injected credentials, baked keys, keys passed at launch. */
function envSectionRows(d: StatusData): ModelRow[] {
  const rows = [...hostEnvRows(d), ...credentialRowsOf(d), ...injectionRows(d)];
  if (d.env_keys.length > 0)
    rows.push({ label: 'Env', value: `${d.env_keys.join(', ')}  (baked into the image)` });
  const boxEnv = d.launch.box_env_keys;
  if (d.launch.state === 'verified' && boxEnv !== null && boxEnv.length > 0)
    rows.push({ label: 'Box env', value: `${boxEnv.join(', ')}  (keys passed at launch)` });
  return rows;
}

function skillGrantValue(g: StatusData['skill_grants'][number]): string {
  switch (g.kind) {
    case 'mount':
      return `${g.skill}: mount ${g.value}`;
    case 'cap':
      return `${g.skill}: ${g.value}`;
    case 'run_arg':
      return `${g.skill}: run arg ${g.value}`;
    case 'netns_init':
      return `${g.skill}: netns init ${g.value}`;
    case 'sock_group':
      return `${g.skill}: socket group for ${g.value}`;
  }
}

/** Skill grants, reserved env keys, and the raw run and build entries. */
function grantAndRawRows(d: StatusData): ModelRow[] {
  return [
    ...listRows('Skill grants', d.skill_grants.map(skillGrantValue), null),
    ...listRows(
      'Reserved env',
      d.reserved_env.map((r) => `⚠ ${r.note}`),
      null,
      { kind: 'never-truncate' },
    ),
    // Every raw entry, read as the engine reads it: the ones that widen the
    // box also stand above, with the mounts, ports and holes (adr/0051).
    ...listRows('Raw run args', d.raw_run_args.map(rawRunArgRow), null, {
      kind: 'never-truncate',
    }),
    ...rawBuildRows(d),
  ];
}

/** The default tier counts the raw build lines; the full tier shows them. */
function rawBuildRows(d: StatusData): ModelRow[] {
  if (d.build_raw.length === 0) return [];
  return [
    {
      label: 'Raw build',
      value: `${plural(d.build_raw.length, 'line')}  (not introspected; --full to show)`,
      tier: 'default',
      kind: 'never-truncate',
    },
    {
      label: 'Raw build',
      value: `${plural(d.build_raw.length, 'line')}  (not introspected):`,
      tier: 'full',
      kind: 'never-truncate',
    },
    ...d.build_raw.map((value): ModelRow => ({
      label: '',
      continuation: true,
      value,
      tier: 'full',
    })),
  ];
}

/** Sibling worktrees' running boxes, and which exclusive volumes they contend for. */
function worktreeRows(d: StatusData): ModelRow[] {
  const exclusive = d.volumes.filter((v) => v.sharing === 'exclusive').map((v) => v.name);
  const siblings = d.container.siblings.map(
    (s) =>
      `${s.path ?? s.worktree}${s.branch === null ? '' : `  ${s.branch}`}  running (${shortId(s.id)}) on ${s.engine}`,
  );
  if (d.container.siblings_error !== null)
    siblings.push(`could not check every engine: ${d.container.siblings_error}`);
  if (siblings.length > 0 && exclusive.length > 0 && d.container.siblings.length > 0)
    siblings.push(
      `exclusive volume${exclusive.length === 1 ? '' : 's'} ${exclusive.join(', ')}: only one of these boxes can hold ${exclusive.length === 1 ? 'it' : 'them'}`,
    );
  return listRows('Worktrees', siblings, null);
}

/** The rows one text tier shows. */
export function rowsForTier(rows: readonly ModelRow[], tier: StatusTier): StatusRow[] {
  return rows
    .filter((r) => r.tier === undefined || r.tier === tier)
    .map(({ tier: _tier, ...row }) => row);
}
