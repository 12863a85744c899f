// The shapes the config editor's pure model passes around: what it knows
// about the world (gathered once by the command), what it derives from the
// buffer, and the rows, forms and choosers the screen shows. No IO here.

import type { CheckedLayer, ValueLocation } from '../../../config/check-effective.js';
import type { PackageCanon } from '../../../config/canonical.js';
import type { RawLayer } from '../../../config/schema.js';
import type { EffectiveConfig, LayerRef } from '../../../config/types.js';
import type { ConfigIssue } from '../../../errors.js';
import type { HostReaders } from '../../../hostenv/resolve.js';
import type { ContainmentRefusal } from '../../../project/containment.js';
import type { SkillCatalog } from '../../../skills/resolve.js';
import type { ResolvedSkill } from '../../../skills/types.js';
import type { ExposureSummary } from '../../../status/exposure.js';
import type { GrantFacts } from '../../../status/model.js';
import type { TomlEdit } from '../../../tomldoc/index.js';
import type { ConfigKey, EditorFileKind } from './rows.js';

export interface EditorFile {
  path: string;
  kind: EditorFileKind;
  /** `project`, `default`, or the named layer's name. */
  name: string;
}

export interface CatalogChoice {
  id: string;
  description: string;
}

/** What the editor knows besides the buffer: read once when it opens. */
export interface EditorWorld {
  file: EditorFile;
  /** Skill lookups, for resolving the enabled set (posture, skill grants). */
  skills: SkillCatalog;
  canon: PackageCanon;
  templates: readonly CatalogChoice[];
  /** Skills with an [agent] table. */
  agents: readonly CatalogChoice[];
  skillChoices: readonly CatalogChoice[];
  /** Named layers that exist in the store. */
  layers: readonly string[];
  /** agent id -> the companion that vouches for its shared-auth offer. */
  companions: Readonly<Record<string, string>>;
  /** Host env values (memoised by the caller: git is asked once per key). */
  readers: HostReaders;
  /** Whether a host path exists (for the loader's mount-host rule). */
  hostExists: (path: string) => boolean;
  /** Granted host paths resolved through a link a box could have planted (adr/0046), located. */
  plantedLinks: (
    config: EffectiveConfig,
    skills: readonly ResolvedSkill[],
    locate: ValueLocation,
  ) => ConfigIssue[];
  userHome: string;
  /**
   * develop's containment rules (adr/0018) over a config and its skills: the
   * caller canonicalises the paths, so the model stays pure.
   */
  containment: (
    config: EffectiveConfig,
    skills: readonly ResolvedSkill[],
  ) => readonly ContainmentRefusal[];
  projectId: string;
  hostUid: number;
  /**
   * Names the wall refused this project's last walled session, most frequent
   * first (the grammar's escaped form, adr/0064): offered as egress additions.
   */
  denied?: readonly DeniedOffer[];
}

/** A name the wall refused, and how often. */
interface DeniedOffer {
  name: string;
  count: number;
}

/** The layers beneath the edited file, as of its current `template` and `extends`. */
export interface Below {
  /** `template|extends` they were read for; a different pair means re-read. */
  key: string;
  layers: CheckedLayer[];
  /** The resolved template id, when the file selects one. */
  template: string | null;
}

/** Everything the screen shows that follows from the buffer. */
export interface Derived {
  /** The file as written (before canonicalisation). */
  raw: RawLayer;
  ref: LayerRef;
  config: EffectiveConfig;
  skills: ResolvedSkill[];
  skillError: string | null;
  facts: GrantFacts;
  summary: ExposureSummary;
  /** Cascade-level problems: collisions, missing mount hosts, unresolvable skills. */
  problems: ConfigIssue[];
}

/** A change to the buffer, and what the status line says it did. */
export interface Change {
  edits: TomlEdit[];
  says: string;
}

export interface FieldSpec {
  name: string;
  label: string;
  initial: string;
  /** A choice field cycles through these with ←→. */
  choices?: readonly string[];
  /** Shown when the field is empty. */
  placeholder?: string;
  /** Prose: ^e writes it in $EDITOR. */
  prose?: boolean;
}

/** A field-level refusal found before the buffer is touched (a port that is not a number). */
export interface FieldError {
  field: string;
  message: string;
}

export interface FormSpec {
  title: string;
  fields: FieldSpec[];
  build(values: Readonly<Record<string, string>>): Change | FieldError;
}

/** A choice: an edit to the buffer, closing the list, or clearing a machine volume's data. */
export type ChooserOption = { label: string; detail?: string } & (
  | { change: Change }
  | { keep: true }
  /** The engine volume's name (`byre-machine-u<uid>-<name>`): deleted on every engine, not an edit. */
  | { clearVolume: string }
);

export interface ChooserSpec {
  title: string;
  options: ChooserOption[];
  /** The option the cursor starts on. */
  initial: number;
}

export type Opener = { kind: 'form'; form: FormSpec } | { kind: 'choose'; chooser: ChooserSpec };

export interface RowActions {
  /** ↵ */
  open?: Opener;
  /** ←→: the next value in that direction. */
  cycle?: (direction: 1 | -1) => Change | null;
  /** x: the change, or why this row cannot be removed here. */
  remove?: Change | string;
  /** ^e on this row edits this prose in $EDITOR. */
  prose?: { text: string; apply: (text: string) => Change };
  /** Why ↵ does nothing here (a read-only row names who owns it). */
  note?: string;
}

export type RowTone = 'normal' | 'dim' | 'warn' | 'marker';

/** One line-group of the screen: a section title, a key's heading, or a selectable row. */
export type Item =
  | { kind: 'section'; id: string; title: string }
  | { kind: 'heading'; id: string; key: ConfigKey; label: string; value: string }
  | {
      kind: 'row';
      id: string;
      key: ConfigKey;
      /** 1: a key's own row (Base); 2: an entry under a heading. */
      depth: 1 | 2;
      label: string;
      value: string;
      /** `project`, `layer:work`, `skill:byre/claude`, `built-in` …; null for add rows. */
      origin: string | null;
      /** Set in the file being edited. */
      here: boolean;
      tone: RowTone;
      act: RowActions;
    };

export type RowItem = Extract<Item, { kind: 'row' }>;
