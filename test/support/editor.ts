// A config editor session for unit tests: the real model (parse, merge,
// derive, items, reducer) over an in-memory file and layers beneath it, a
// fake skill catalog and fixed host readers. Keys go in as the reducer reads
// them; the buffer comes out as text.

import { containmentInput, containmentRefusalsOf } from '../../src/containment/check.js';
import { coreLayer } from '../../src/config/core-layer.js';
import { parseLayer } from '../../src/config/parse.js';
import type { LayerKind } from '../../src/config/types.js';
import { mountPath, type CheckedLayer } from '../../src/config/check-effective.js';
import type { ResolvedSkill } from '../../src/skills/types.js';
import { belowKey, derive, parseBuffer } from '../../src/tui/model/config-editor/derive.js';
import { editorItems } from '../../src/tui/model/config-editor/items.js';
import type { EditorFileKind } from '../../src/tui/model/config-editor/rows.js';
import {
  initialEditorState,
  reduceEditor,
  selectableRows,
  selectedIndex,
  type EditorContext,
  type EditorEvent,
  type EditorState,
} from '../../src/tui/model/config-editor/state.js';
import type { EditorWorld, Item, RowItem } from '../../src/tui/model/config-editor/types.js';

/** A key as the editor's reducer reads it: what a key event carries. */
type EditorKey = Extract<EditorEvent, { kind: 'key' }>['key'];

export interface LowerLayer {
  kind: Exclude<LayerKind, 'core' | 'project'>;
  name: string;
  text: string;
}

export interface SessionOptions {
  kind?: EditorFileKind;
  name?: string;
  text?: string;
  below?: LowerLayer[];
  skills?: ResolvedSkill[];
  /** Host paths that exist (mount hosts); every other one is missing. */
  hostPaths?: string[];
  /** Mount hosts that reach their path through a link a box could have planted (adr/0046). */
  plantedHosts?: string[];
  layers?: string[];
  /** Names the wall refused in the last session (adr/0064). */
  denied?: EditorWorld['denied'];
}

export function lowerLayers(below: readonly LowerLayer[]): CheckedLayer[] {
  return [
    coreLayer(),
    ...below.map((l) => {
      const file = `/store/${l.kind}/${l.name}`;
      const parsed = parseLayer(l.text, { file, kind: l.kind, name: l.name });
      if (parsed.value === null)
        throw new Error(`bad test layer: ${JSON.stringify(parsed.issues)}`);
      return { ref: { kind: l.kind, name: l.name, path: file }, raw: parsed.value, text: l.text };
    }),
  ];
}

export function testWorld(opts: SessionOptions = {}): EditorWorld {
  const kind = opts.kind ?? 'project';
  const name = opts.name ?? (kind === 'layer' ? 'work' : kind);
  const skills = opts.skills ?? [];
  const find = (ref: string): ResolvedSkill | null =>
    skills.find((s) => s.id === ref || s.id === `byre/${ref}`) ?? null;
  const path =
    kind === 'project'
      ? '/store/projects/app-123abc/byre.config'
      : kind === 'default'
        ? '/store/default.config'
        : `/store/layers/${name}/layer.config`;
  const companions: Record<string, string> = {};
  for (const s of skills) if (s.meta?.sharedAuthFor) companions[s.meta.sharedAuthFor] = s.id;
  return {
    file: { path, kind, name },
    skills: { lookup: find, ids: () => skills.map((s) => s.id) },
    canon: { skill: (r) => find(r)?.id ?? r, template: (r) => r },
    templates: [
      { id: 'byre/node', description: 'Node.js' },
      { id: 'byre/go', description: 'Go' },
    ],
    agents: skills
      .filter((s) => s.agent !== null)
      .map((s) => ({ id: s.id, description: s.description })),
    skillChoices: skills.map((s) => ({ id: s.id, description: s.description })),
    layers: opts.layers ?? ['work'],
    companions,
    readers: {
      git: (k) => `git-${k}`,
      env: (n) => (n === 'TERM' ? 'xterm' : null),
      tz: () => 'UTC',
    },
    hostExists: (p) => (opts.hostPaths ?? ['/src/lib', '/home/u/data']).includes(p),
    plantedLinks: (config, _skills, locate) =>
      config.mounts
        .filter((m) => (opts.plantedHosts ?? []).includes(m.value.host))
        .map((m) => ({
          rule: 'containment.link-in-box-tree',
          message: `the mount ${m.value.host} reaches its host path through a planted link`,
          location: locate(m.from, mountPath(m.value.target, 'host')),
        })),
    userHome: '/home/u',
    // develop's rules over the test world's paths, taken as canonical.
    containment: (config, skills) =>
      containmentRefusalsOf(
        {
          ...containmentInput(
            { worktreeDir: '/home/u/src/app', gitPaths: null },
            '/home/u/.byre',
            '/home/u',
            config,
            [...skills],
          ),
          executable: '/home/u/.local/bin/byre',
          runtime: ['/tmp/byre-1000'],
        },
        (p) => p,
      ),
    projectId: 'app-123abc',
    hostUid: 1000,
    ...(opts.denied === undefined ? {} : { denied: opts.denied }),
  };
}

export class Session {
  readonly world: EditorWorld;
  state: EditorState;

  constructor(opts: SessionOptions = {}) {
    this.world = testWorld(opts);
    const below = opts.below ?? [];
    const text = opts.text ?? '';
    this.state = initialEditorState(text, {
      key: belowKey(parseBuffer(text, this.world.file).raw, this.world.file),
      layers: lowerLayers(below),
      template: below.find((l) => l.kind === 'template')?.name ?? null,
    });
  }

  get text(): string {
    return this.state.text;
  }

  context(): EditorContext {
    const derived = derive(this.state.text, this.state.below, this.world);
    return { world: this.world, derived, items: editorItems(this.world, derived), page: 5 };
  }

  items(): Item[] {
    return [...this.context().items];
  }

  rows(): RowItem[] {
    return selectableRows(this.items());
  }

  /** The first row whose id starts with `prefix`. */
  row(prefix: string): RowItem {
    const found = this.rows().find((r) => r.id.startsWith(prefix));
    if (found === undefined) {
      throw new Error(
        `no row ${prefix}; rows: ${this.rows()
          .map((r) => r.id)
          .join(', ')}`,
      );
    }
    return found;
  }

  selected(): RowItem | undefined {
    return this.rows()[selectedIndex(this.state, this.items())];
  }

  /** Put the cursor on a row by id prefix. */
  select(prefix: string): this {
    const target = this.row(prefix);
    const at = this.rows().findIndex((r) => r.id === target.id);
    this.state = { ...this.state, cursor: target.id, cursorAt: at };
    return this;
  }

  /** One event; a re-read of the layers below is answered at once with the same layers. */
  send(event: EditorEvent): this {
    this.state = reduceEditor(this.state, event, this.context());
    const effect = this.state.effect;
    if (effect?.kind === 'reload-below' && this.autoReload) {
      this.send({
        kind: 'below-loaded',
        below: { ...this.state.below, key: effect.key },
        issues: [],
      });
    }
    return this;
  }

  /** Answer re-reads of the layers below automatically (off to test the answer itself). */
  autoReload = true;

  /** Keys: names ('enter', 'down' …), `^s` for control keys, anything else is typed text. */
  press(...keys: string[]): this {
    for (const k of keys) this.send({ kind: 'key', key: toKey(k) });
    return this;
  }

  message(): string {
    return this.state.message?.text ?? '';
  }
}

const NAMED = new Set([
  'up',
  'down',
  'left',
  'right',
  'enter',
  'escape',
  'tab',
  'backtab',
  'backspace',
  'delete',
  'home',
  'end',
  'pageup',
  'pagedown',
]);

function toKey(k: string): EditorKey {
  if (NAMED.has(k)) return { name: k } as EditorKey;
  if (/^\^[a-z]$/.test(k)) return { name: 'ctrl', char: k.slice(1) };
  return { name: 'text', text: k };
}
