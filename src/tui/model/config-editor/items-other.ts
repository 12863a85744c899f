// EXTENDS, ADVANCED (raw Dockerfile blocks, run_args, volumes, worktree
// base) and the picker-owned keys (onboarding defaults, the legacy
// shared_auth spelling). Raw lines only add up across layers: an inherited
// line cannot be removed here, and the row says so. Pure.

import type { EffectiveConfig, Sourced } from '../../../config/types.js';
import type { TomlTable } from '../../../tomldoc/index.js';
import {
  dropRemovalMarker,
  listAdd,
  listRemove,
  addRemovalMarker,
  removeEntry,
  setAt,
} from './edits.js';
import { textForm, volumeForm } from './forms.js';
import { machineVolumeName } from '../../../gen/names.js';
import {
  addRow,
  cycleThrough,
  heading,
  markerRow,
  originTag,
  row,
  skillTag,
  sourcedRow,
  switchActs,
  type RowBuilders,
  type RowContext,
} from './kit.js';
import type { Change, ChooserOption, Item } from './types.js';

function extendsRow(ctx: RowContext): Item[] {
  const { config } = ctx.derived;
  const own = ctx.raw.extends;
  const names = ctx.world.layers.filter(
    (n) => !(ctx.world.file.kind === 'layer' && n === ctx.world.file.name),
  );
  const change = (value: string | undefined): Change => ({
    edits: [setAt(['extends'], value)],
    says: value === undefined ? 'extends removed' : `extends = ${value}`,
  });
  const options: ChooserOption[] = [
    { label: '(none)', change: change(undefined) },
    ...names.map((n) => ({ label: n, change: change(n) })),
  ];
  const chain = config.extendsChain;
  return [
    row(ctx, 'value', {
      depth: 1,
      label: 'Extends',
      value: own ?? 'nothing',
      origin: own === undefined ? null : originTag(ctx.derived.ref),
      here: own !== undefined,
      act: {
        open: {
          kind: 'choose',
          chooser: {
            title: 'Build on a named layer',
            options,
            initial: Math.max(0, names.indexOf(own ?? '') + 1),
          },
        },
      },
    }),
    ...(chain.length === 0
      ? []
      : [
          row(ctx, 'chain', {
            depth: 2,
            label: 'chain',
            value: [...chain, ctx.world.file.name].join(' → '),
            tone: 'dim',
            act: { note: 'layers resolve root first; byre layer list shows them all' },
          }),
        ]),
  ];
}

const LINE_FIELD = {
  dockerfile_pre: 'dockerfilePre',
  dockerfile_post: 'dockerfilePost',
  run_args: 'runArgs',
} as const satisfies Record<string, keyof EffectiveConfig>;

function lines(ctx: RowContext): Item[] {
  const key = ctx.key as keyof typeof LINE_FIELD;
  const list: readonly Sourced<string>[] = ctx.derived.config[LINE_FIELD[key]];
  const own = ctx.raw[key] ?? [];
  // Raw build lines are never parsed; raw run_args are read as the engine
  // reads them, and status flags each one that widens the box (adr/0051).
  const some =
    key === 'run_args' ? 'passed as written; status flags what widens the box' : 'not introspected';
  const items: Item[] = [heading(ctx, list.length === 0 ? 'none' : some)];
  let ownIndex = 0;
  list.forEach((entry, i) => {
    const { origin, here } = sourcedRow(ctx, entry);
    const index = here ? ownIndex++ : -1;
    items.push(
      row(ctx, `l:${i}`, {
        label: entry.value,
        origin,
        here,
        act: here
          ? {
              open: {
                kind: 'form',
                form: textForm('Edit line', 'line', entry.value, (value) => ({
                  edits: [setAt([key, index], value)],
                  says: 'line changed',
                })),
              },
              remove: { edits: [listRemove(key, entry.value)], says: 'line removed' },
            }
          : {
              note: `from ${origin}; raw lines only add up, so it cannot be removed here`,
              remove: `from ${origin}; raw lines only add up, so it cannot be removed here`,
            },
      }),
    );
  });
  if (own.length !== ownIndex) {
    // Never expected: every own line is in the merged list, in order.
    items.push(
      row(ctx, 'mismatch', { label: 'lines out of step; ^e edits the file', tone: 'warn' }),
    );
  }
  items.push(
    addRow(ctx, 'add a line', {
      kind: 'form',
      form: textForm('New line', 'line', '', (value) => ({
        edits: [listAdd(key, value)],
        says: 'line added',
      })),
    }),
  );
  return items;
}

function volumes(ctx: RowContext): Item[] {
  const { config, skills } = ctx.derived;
  const own = ctx.raw.volumes ?? [];
  const items: Item[] = [heading(ctx, config.volumes.length === 0 ? 'none' : '')];
  const describe = (v: { role: string; target: string; scope: string; sharing: string }): string =>
    `${v.role} ${v.target}${v.scope === 'machine' ? ', machine-wide' : ''}${v.sharing === 'exclusive' ? ', exclusive' : ''}`;
  for (const entry of config.volumes) {
    const v = entry.value;
    const { origin, here } = sourcedRow(ctx, entry);
    const base = here
      ? ((own.find((o) => o.name === v.name) as TomlTable | undefined) ?? null)
      : null;
    items.push(
      row(ctx, `v:${v.name}`, {
        label: v.name,
        value: describe(v),
        origin,
        here,
        act: {
          open: {
            kind: 'form',
            form: volumeForm(
              {
                prefill: base ?? {
                  name: v.name,
                  role: v.role,
                  target: v.target,
                  scope: v.scope,
                  sharing: v.sharing,
                  ...(v.seed === undefined ? {} : { seed: { ...v.seed } }),
                },
                base,
              },
              here ? 'Volume' : `Volume (overrides ${origin})`,
            ),
          },
          remove: here
            ? { edits: [removeEntry('volumes', v.name)], says: `volume ${v.name} removed` }
            : {
                edits: [addRemovalMarker('volumes', v.name)],
                says: `volume ${v.name} removed here (!${v.name})`,
              },
        },
      }),
    );
  }
  for (const s of skills) {
    for (const v of s.volumes) {
      items.push(
        row(ctx, `skill:${s.id}:${v.name}`, {
          label: v.name,
          value: describe(v),
          origin: skillTag(s.id),
          tone: 'dim',
          act: { note: `declared by skill ${s.id}` },
        }),
      );
    }
  }
  for (const o of own) {
    const name = o.name ?? '';
    if (name.startsWith('!')) {
      items.push(markerRow(ctx, name, name.slice(1), dropRemovalMarker('volumes', name.slice(1))));
    }
  }
  items.push(...volumeData(ctx));
  items.push(
    addRow(ctx, 'add a volume', {
      kind: 'form',
      form: volumeForm({ prefill: null, base: null }, 'New volume'),
    }),
  );
  return items;
}

/**
 * Volume data: each machine-scoped volume in effect (the config's and the
 * skills'), whose data ↵ can clear. The clear deletes the engine volume on
 * every engine and is refused while any byre session runs; it edits no file.
 */
function volumeData(ctx: RowContext): Item[] {
  const machine = [
    ...ctx.derived.config.volumes.map((e) => e.value),
    ...ctx.derived.skills.flatMap((s) => s.volumes),
  ].filter((v) => v.scope === 'machine');
  const names = [...new Set(machine.map((v) => v.name))].sort();
  return names.map((name) => {
    const volume = machineVolumeName(ctx.world.hostUid, name);
    return row(ctx, `data:${name}`, {
      label: `${name} data`,
      value: volume,
      tone: 'dim',
      act: {
        open: {
          kind: 'choose',
          chooser: {
            title: `Volume data: ${volume} (shared by every project's boxes)`,
            initial: 0,
            options: [
              { label: 'keep it', keep: true },
              {
                label: 'clear it: delete the volume on every engine',
                detail: 'refused while any byre session runs; the next box starts it empty',
                clearVolume: volume,
              },
            ],
          },
        },
        note: `the data of machine volume ${volume}: ↵ offers to clear it`,
      },
    });
  });
}

function worktreeBase(ctx: RowContext): Item[] {
  const effective = ctx.derived.config.worktreeBase;
  return [
    row(ctx, 'value', {
      depth: 1,
      label: 'Worktree base',
      value: effective?.value ?? 'not set (byre worktree needs --path)',
      ...(effective === null ? {} : sourcedRow(ctx, effective)),
      act: {
        open: {
          kind: 'form',
          form: textForm(
            'Worktree base',
            'sibling or a directory',
            ctx.raw.worktree_base ?? '',
            (value) => ({
              edits: [setAt(['worktree_base'], value.trim() === '' ? undefined : value.trim())],
              says:
                value.trim() === ''
                  ? 'worktree_base no longer set here'
                  : `worktree_base = ${value.trim()}`,
            }),
            'sibling',
          ),
        },
      },
    }),
  ];
}

/** `[defaults] shared_auth` as a table (the legacy yes-list names each agent's bundled companion). */
function sharedAuthTable(
  value: string[] | Record<string, string> | undefined,
): Record<string, string> {
  if (value === undefined) return {};
  if (!Array.isArray(value)) return { ...value };
  return Object.fromEntries(value.map((agent) => [agent, `${agent}-shared-auth`]));
}

const bare = (id: string): string => (id.startsWith('byre/') ? id.slice('byre/'.length) : id);

function defaults(ctx: RowContext): Item[] {
  const own = ctx.raw.defaults;
  if (ctx.world.file.kind !== 'default') {
    const set = own !== undefined && Object.keys(own).length > 0;
    return [
      row(ctx, 'value', {
        depth: 1,
        label: 'Defaults',
        value: set ? 'set in this file (only default.config’s are read)' : 'not set here',
        tone: 'dim',
        act: {
          note: 'the first-run picker’s answers live in default.config: byre config --global edits them',
        },
      }),
    ];
  }
  const table = sharedAuthTable(own?.shared_auth);
  const legacyList = Array.isArray(own?.shared_auth);
  const items: Item[] = [heading(ctx, 'the first-run picker’s stored answers')];
  const agents = new Set([...Object.keys(ctx.world.companions).map(bare), ...Object.keys(table)]);
  for (const agent of [...agents].sort()) {
    const companion =
      ctx.world.companions[`byre/${agent}`] ?? ctx.world.companions[agent] ?? table[agent];
    const on = table[agent] !== undefined;
    const next = { ...table };
    if (on) delete next[agent];
    else if (companion !== undefined) next[agent] = bare(companion);
    const flip: Change = {
      edits: [
        setAt(['defaults', 'shared_auth'], Object.keys(next).length === 0 ? undefined : next),
      ],
      says: `shared auth for ${agent} ${on ? 'no longer pre-selected' : 'pre-selected'}`,
    };
    items.push(
      row(ctx, `shared:${agent}`, {
        label: `Shared auth: ${agent}`,
        value: on ? `yes (${table[agent] ?? ''})` : 'no',
        origin: on ? 'default' : null,
        here: on,
        act: {
          ...switchActs(
            `Shared auth for ${agent}`,
            on ? 'stop pre-selecting yes' : 'pre-select yes',
            flip,
          ),
          ...(legacyList
            ? { note: 'written as a table on change (the legacy list form is read too)' }
            : {}),
        },
      }),
    );
  }
  const skip = own?.skip_questions === true;
  const skipChange = (value: boolean | undefined): Change => ({
    edits: [setAt(['defaults', 'skip_questions'], value)],
    says:
      value === true
        ? 'new projects take the stored answers without asking'
        : 'the first-run picker asks again',
  });
  items.push(
    row(ctx, 'skip', {
      label: 'Skip questions',
      value: skip ? 'yes: new projects use the stored answers, unasked' : 'no',
      origin: own?.skip_questions === undefined ? null : 'default',
      here: own?.skip_questions !== undefined,
      act: {
        cycle: cycleThrough(
          [undefined, true],
          skip ? true : undefined,
          (a, b) => a === b,
          skipChange,
        ),
        open: {
          kind: 'choose',
          chooser: {
            title: 'Skip the first-run questions',
            initial: skip ? 1 : 0,
            options: [
              { label: 'no: ask', change: skipChange(undefined) },
              { label: 'yes: use the stored answers', change: skipChange(true) },
            ],
          },
        },
      },
    }),
  );
  return items;
}

function legacySharedAuth(ctx: RowContext): Item[] {
  const legacy = ctx.raw.shared_auth;
  if (legacy === undefined) return [];
  return [
    row(ctx, 'value', {
      depth: 1,
      label: 'Shared auth (legacy)',
      value: Array.isArray(legacy) ? legacy.join(', ') : Object.keys(legacy).join(', '),
      origin: originTag(ctx.derived.ref),
      here: true,
      tone: 'dim',
      act: { note: 'the old spelling: saving this file moves it to [defaults] shared_auth' },
    }),
  ];
}

export const buildOtherRows = {
  extends: extendsRow,
  lines,
  volumes,
  'worktree-base': worktreeBase,
  defaults,
  'legacy-shared-auth': legacySharedAuth,
} satisfies RowBuilders;
