// BUILD rows: base, template, agent, engine, seed_prefs, apt packages,
// skills, files, sources, MCP servers, Claude Skills and instructions. In
// default.config, template and agent are the first-run picker's
// pre-selections (ONBOARDING FAVOURITES), never part of a box. Pure.
// Over 500 lines: one short row builder per BUILD key, in the section's order.

import type { Sourced } from '../../../config/types.js';
import type { TomlTable } from '../../../tomldoc/index.js';
import {
  dropRemovalMarker,
  listAdd,
  listRemove,
  addRemovalMarker,
  removeEntry,
  setAt,
  type EntryKey,
} from './edits.js';
import {
  claudeSkillForm,
  contextForm,
  mcpForm,
  pairForm,
  sourceForm,
  textForm,
  type EntryAt,
} from './forms.js';
import {
  addRow,
  cycleThrough,
  heading,
  markerRow,
  noUnset,
  originTag,
  row,
  skillTag,
  sourcedRow,
  type RowBuilders,
  type RowContext,
} from './kit.js';
import type { CatalogChoice, Change, ChooserOption, FormSpec, Item } from './types.js';

const UNSET = '(not set here)';

/** A scalar's choices as chooser options and as a ←→ cycle, all writing this layer. */
function choiceActions(
  key: string,
  current: string | undefined,
  options: readonly { value: string | undefined; label: string; detail?: string }[],
  title: string,
) {
  const change = (value: string | undefined): Change => ({
    edits: [setAt([key], value)],
    says: value === undefined ? `${key} no longer set here` : `${key} = ${value}`,
  });
  const chooserOptions: ChooserOption[] = options.map((o) => ({
    label: o.label,
    ...(o.detail === undefined ? {} : { detail: o.detail }),
    change: change(o.value),
  }));
  const initial = Math.max(
    0,
    options.findIndex((o) => o.value === current),
  );
  return {
    open: { kind: 'choose' as const, chooser: { title, options: chooserOptions, initial } },
    cycle: cycleThrough(
      options.map((o) => o.value),
      current,
      (a, b) => a === b,
      change,
    ),
  };
}

function scalarValue(entry: Sourced<string> | null, fallback: string, ctx: RowContext) {
  return entry === null
    ? { value: fallback, origin: null, here: false }
    : { value: entry.value, ...sourcedRow(ctx, entry) };
}

function base(ctx: RowContext): Item[] {
  const { config } = ctx.derived;
  return [
    row(ctx, 'value', {
      depth: 1,
      label: 'Base',
      ...scalarValue(config.base, '', ctx),
      act: {
        open: {
          kind: 'form',
          form: textForm(
            'Base image',
            'image',
            ctx.raw.base ?? '',
            (value) => ({
              edits: [setAt(['base'], value.trim() === '' ? undefined : value.trim())],
              says: value.trim() === '' ? 'base no longer set here' : `base = ${value.trim()}`,
            }),
            config.base.value,
          ),
        },
      },
    }),
  ];
}

function packageChoices(
  choices: readonly CatalogChoice[],
): { value: string | undefined; label: string; detail?: string }[] {
  return [
    { value: undefined, label: UNSET },
    { value: 'none', label: 'none' },
    ...choices.map((c) => ({ value: c.id, label: c.id, detail: c.description })),
  ];
}

/** Template or agent: the box's choice, or in default.config the picker's favourite. */
function packageRow(
  ctx: RowContext,
  key: 'template' | 'agent',
  choices: readonly CatalogChoice[],
): Item[] {
  const favourite = ctx.world.file.kind === 'default';
  const own = ctx.raw[key];
  const effective = favourite ? null : ctx.derived.config[key];
  const shown = favourite
    ? {
        value: own ?? '(none)',
        origin: own === undefined ? null : 'default',
        here: own !== undefined,
      }
    : scalarValue(effective, 'none', ctx);
  const label = key === 'template' ? 'Template' : 'Agent';
  return [
    row(ctx, 'value', {
      depth: 1,
      label: favourite ? `${label} (pre-selected)` : label,
      ...shown,
      act: choiceActions(
        key,
        own,
        packageChoices(choices),
        favourite ? `${label} the first-run picker pre-selects` : label,
      ),
    }),
  ];
}

function engine(ctx: RowContext): Item[] {
  const options = [
    { value: undefined, label: UNSET },
    ...['auto', 'docker', 'podman'].map((value) => ({ value, label: value })),
  ];
  return [
    row(ctx, 'value', {
      depth: 1,
      label: 'Engine',
      ...scalarValue(ctx.derived.config.engine, 'auto', ctx),
      act: choiceActions('engine', ctx.raw.engine, options, 'Engine'),
    }),
  ];
}

function seedPrefs(ctx: RowContext): Item[] {
  const effective = ctx.derived.config.seedPrefs;
  const own = ctx.raw.seed_prefs;
  const options: { value: boolean | undefined; label: string }[] = [
    { value: undefined, label: UNSET },
    { value: true, label: 'true' },
    { value: false, label: 'false' },
  ];
  const change = (value: boolean | undefined): Change => ({
    edits: [setAt(['seed_prefs'], value)],
    says: value === undefined ? 'seed_prefs no longer set here' : `seed_prefs = ${String(value)}`,
  });
  return [
    row(ctx, 'value', {
      depth: 1,
      label: 'Seed prefs',
      value: effective === null ? 'off (unset)' : String(effective.value),
      ...(effective === null ? {} : sourcedRow(ctx, effective)),
      act: {
        cycle: cycleThrough(
          options.map((o) => o.value),
          own,
          (a, b) => a === b,
          change,
        ),
        open: {
          kind: 'choose',
          chooser: {
            title: 'Seed prefs',
            initial: Math.max(
              0,
              options.findIndex((o) => o.value === own),
            ),
            options: options.map((o) => ({ label: o.label, change: change(o.value) })),
          },
        },
      },
    }),
  ];
}

/** A plain name list where `!name` drops an inherited name (apt, skills). */
function nameList(
  ctx: RowContext,
  key: 'apt' | 'skills',
  entries: readonly Sourced<string>[],
  asWritten: (value: string) => string | undefined,
): Item[] {
  const items: Item[] = [];
  for (const entry of entries) {
    const { origin, here } = sourcedRow(ctx, entry);
    const written = here ? asWritten(entry.value) : undefined;
    items.push(
      row(ctx, `n:${entry.value}`, {
        label: entry.value,
        origin,
        here,
        act: {
          remove:
            written !== undefined
              ? { edits: [listRemove(key, written)], says: `${entry.value} removed` }
              : {
                  edits: [listAdd(key, `!${entry.value}`)],
                  says: `${entry.value} removed here (!${entry.value}; from ${origin})`,
                },
        },
      }),
    );
  }
  for (const marker of ctx.raw[key] ?? []) {
    if (marker.startsWith('!'))
      items.push(markerRow(ctx, marker, marker.slice(1), listRemove(key, marker)));
  }
  return items;
}

/** Adding a name takes back this layer's removal marker for it. */
function addName(ctx: RowContext, key: 'apt' | 'skills', name: string): Change {
  const marker = (ctx.raw[key] ?? []).filter((m) => m === `!${name}`);
  return {
    edits: [...marker.map((m) => listRemove(key, m)), listAdd(key, name)],
    says: `${name} added`,
  };
}

function apt(ctx: RowContext): Item[] {
  const { config, skills } = ctx.derived;
  const own = ctx.raw.apt ?? [];
  const items: Item[] = [heading(ctx, config.apt.length === 0 ? 'none' : '')];
  items.push(...nameList(ctx, 'apt', config.apt, (v) => own.find((o) => o === v)));
  for (const s of skills) {
    for (const name of s.build.apt) {
      items.push(
        row(ctx, `skill:${s.id}:${name}`, {
          label: name,
          origin: skillTag(s.id),
          tone: 'dim',
          act: { note: `installed by skill ${s.id}` },
        }),
      );
    }
  }
  items.push(
    addRow(ctx, 'add a package', {
      kind: 'form',
      form: textForm(
        'New apt package',
        'package',
        '',
        (v) => addName(ctx, 'apt', v.trim()),
        'ripgrep',
      ),
    }),
  );
  return items;
}

function skills(ctx: RowContext): Item[] {
  const { config } = ctx.derived;
  const own = ctx.raw.skills ?? [];
  const canon = ctx.world.canon.skill;
  const items: Item[] = [heading(ctx, config.skills.length === 0 ? 'none' : '')];
  items.push(
    ...nameList(ctx, 'skills', config.skills, (v) =>
      own.find((o) => !o.startsWith('!') && (o === v || canon(o) === v)),
    ),
  );
  const agent = config.agent;
  if (agent !== null && !config.skills.some((s) => s.value === agent.value)) {
    items.push(
      row(ctx, `agent:${agent.value}`, {
        label: agent.value,
        value: 'the agent',
        origin: originTag(agent.from),
        tone: 'dim',
        act: { note: 'enabled because it is the agent; change Agent to drop it' },
      }),
    );
  }
  const enabled = new Set(config.skills.map((s) => s.value));
  const options: ChooserOption[] = ctx.world.skillChoices
    .filter((c) => !enabled.has(c.id))
    .map((c) => ({ label: c.id, detail: c.description, change: addName(ctx, 'skills', c.id) }));
  items.push(
    addRow(ctx, 'enable a skill', {
      kind: 'choose',
      chooser: { title: 'Enable a skill', options, initial: 0 },
    }),
  );
  return items;
}

/** A string table with no unset (files, sources): x removes only this layer's own key. */
function mapRows<T>(
  ctx: RowContext,
  entries: Readonly<Record<string, Sourced<T>>>,
  show: (key: string, value: T) => { label: string; value: string },
  form: (key: string, value: T) => FormSpec,
  path: (key: string) => string[],
): Item[] {
  return Object.keys(entries)
    .sort()
    .flatMap((key) => {
      const entry = entries[key];
      if (entry === undefined) return [];
      const { origin, here } = sourcedRow(ctx, entry);
      return [
        row(ctx, `k:${key}`, {
          ...show(key, entry.value),
          origin,
          here,
          act: {
            open: { kind: 'form', form: form(key, entry.value) },
            remove: here
              ? { edits: [setAt(path(key), undefined)], says: `${key} removed` }
              : noUnset(key, entry.from),
          },
        }),
      ];
    });
}

function files(ctx: RowContext): Item[] {
  const names = { key: 'src (in the project)', value: 'dest (in the box)' };
  const entries = ctx.derived.config.files;
  return [
    heading(ctx, Object.keys(entries).length === 0 ? 'none' : 'copied into the image'),
    ...mapRows(
      ctx,
      entries,
      (src, dest) => ({ label: `${src} → ${dest}`, value: '' }),
      (src, dest) => pairForm('files', names, { key: src, value: dest }, 'File'),
      (src) => ['files', src],
    ),
    addRow(ctx, 'add a file', { kind: 'form', form: pairForm('files', names, null, 'New file') }),
  ];
}

function sources(ctx: RowContext): Item[] {
  const entries = ctx.derived.config.sources;
  return [
    heading(ctx, Object.keys(entries).length === 0 ? 'none' : 'install hints, never fetched'),
    ...mapRows(
      ctx,
      entries,
      (id, hint) => ({ label: id, value: hint.uri }),
      (id, hint) => sourceForm({ id, uri: hint.uri, digest: hint.digest ?? '' }, 'Source'),
      (id) => ['sources', id],
    ),
    addRow(ctx, 'add a source', { kind: 'form', form: sourceForm(null, 'New source') }),
  ];
}

/**
 * Named wiring ([[mcp]], [[claude_skills]], [[context]]): this layer's own
 * entries, inherited ones (x writes `!name` here), skill-declared ones (x
 * closes them, for the closable kinds) and the closures that survived.
 */
function wiringRows<T extends { name: string }>(
  ctx: RowContext,
  key: Extract<EntryKey, 'mcp' | 'claude_skills' | 'context'>,
  spec: {
    list: readonly Sourced<T>[];
    fromSkills: readonly { skill: string; value: T }[];
    closed: readonly Sourced<string>[];
    describe: (value: T) => string;
    form: (at: EntryAt, title: string) => FormSpec;
    what: string;
    prose?: (value: T) => string | null;
  },
): Item[] {
  const own = (ctx.raw[key] ?? []) as { name?: string }[];
  const items: Item[] = [];
  for (const entry of spec.list) {
    const value = entry.value;
    const { origin, here } = sourcedRow(ctx, entry);
    const base = here
      ? ((own.find((o) => o.name === value.name) as TomlTable | undefined) ?? null)
      : null;
    const prose = spec.prose?.(value) ?? null;
    items.push(
      row(ctx, `w:${value.name}`, {
        label: value.name,
        value: spec.describe(value),
        origin,
        here,
        act: {
          open: {
            kind: 'form',
            form: spec.form(
              { prefill: base ?? (value as unknown as TomlTable), base },
              here ? spec.what : `${spec.what} (overrides ${origin})`,
            ),
          },
          remove: here
            ? { edits: [removeEntry(key, value.name)], says: `${spec.what} ${value.name} removed` }
            : {
                edits: [addRemovalMarker(key, value.name)],
                says: `${spec.what} ${value.name} removed here (!${value.name}; from ${origin})`,
              },
          ...(prose === null
            ? {}
            : {
                prose: {
                  text: prose,
                  apply: (text: string): Change => ({
                    edits: [
                      {
                        op: 'entry-upsert',
                        path: [key],
                        key: 'name',
                        entry: { ...(base ?? { name: value.name }), text },
                      },
                    ],
                    says: `${spec.what} ${value.name} rewritten`,
                  }),
                },
              }),
        },
      }),
    );
  }
  for (const { skill, value } of spec.fromSkills) {
    items.push(
      row(ctx, `skill:${skill}:${value.name}`, {
        label: value.name,
        value: spec.describe(value),
        origin: skillTag(skill),
        tone: 'dim',
        act: {
          remove: {
            edits: [addRemovalMarker(key, value.name)],
            says: `${spec.what} ${value.name} closed here (!${value.name}; declared by ${skill})`,
          },
          note: `declared by skill ${skill}; x closes it here`,
        },
      }),
    );
  }
  for (const closure of spec.closed) {
    const here = ctx.here(closure.from);
    items.push(
      row(ctx, `closed:${closure.value}`, {
        label: `!${closure.value}`,
        value: 'closed',
        origin: originTag(closure.from),
        here,
        tone: 'marker',
        act: here
          ? {
              remove: {
                edits: [dropRemovalMarker(key, closure.value)],
                says: `closure of ${closure.value} taken back`,
              },
            }
          : { note: `closed by ${originTag(closure.from)}; declare it here to reopen` },
      }),
    );
  }
  // Removal markers for context (no closures survive the merge): this layer's own.
  if (key === 'context') {
    for (const o of own) {
      const name = o.name ?? '';
      if (name.startsWith('!'))
        items.push(markerRow(ctx, name, name.slice(1), dropRemovalMarker(key, name.slice(1))));
    }
  }
  items.push(
    addRow(ctx, `add ${spec.what === 'instructions' ? 'instructions' : `a ${spec.what}`}`, {
      kind: 'form',
      form: spec.form({ prefill: null, base: null }, `New ${spec.what}`),
    }),
  );
  return [heading(ctx, items.length === 1 ? 'none' : ''), ...items];
}

function mcp(ctx: RowContext): Item[] {
  const { config, skills } = ctx.derived;
  return wiringRows(ctx, 'mcp', {
    list: config.mcp,
    fromSkills: skills.flatMap((s) => s.mcp.map((value) => ({ skill: s.id, value }))),
    closed: config.mcpClosed,
    describe: (m) => m.url ?? (m.command ?? []).join(' '),
    form: mcpForm,
    what: 'MCP server',
  });
}

function claudeSkills(ctx: RowContext): Item[] {
  const { config, skills } = ctx.derived;
  return wiringRows(ctx, 'claude_skills', {
    list: config.claudeSkills,
    fromSkills: skills.flatMap((s) => s.claudeSkills.map((value) => ({ skill: s.id, value }))),
    closed: config.claudeSkillsClosed,
    describe: (c) => c.path,
    form: claudeSkillForm,
    what: 'Claude Skill',
  });
}

function context(ctx: RowContext): Item[] {
  return wiringRows(ctx, 'context', {
    list: ctx.derived.config.context,
    fromSkills: [],
    closed: [],
    describe: (c) =>
      'file' in c
        ? `file ${c.file}`
        : `${c.text.split('\n')[0] ?? ''}${c.text.includes('\n') ? ' …' : ''}`,
    form: contextForm,
    what: 'instructions',
    prose: (c) => ('text' in c ? c.text : null),
  });
}

export const buildBuildRows = {
  base,
  template: (ctx: RowContext) => packageRow(ctx, 'template', ctx.world.templates),
  agent: (ctx: RowContext) => packageRow(ctx, 'agent', ctx.world.agents),
  engine,
  'seed-prefs': seedPrefs,
  apt,
  skills,
  files,
  sources,
  mcp,
  'claude-skills': claudeSkills,
  context,
} satisfies RowBuilders;
