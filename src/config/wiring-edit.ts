// What `byre mcp|claude-skill|context add|remove` write into one config file,
// decided from that file's text and what the layers below it (and the
// enabled skills) still declare. Pure: the command reads, this plans, the
// config writer applies.
//
// remove is closure-smart: it deletes this file's own block, and writes the
// `!name` marker only when something below would otherwise still declare the
// name. add re-opens a `!name` marker this file carries.

import type { TomlEdit, TomlTable } from '../tomldoc/index.js';
import {
  addRemovalMarker,
  declaresEntry,
  dropRemovalMarker,
  marksRemoved,
  removeEntry,
  upsertEntry,
} from './key-edits.js';
import type { EffectiveConfig, LayerRef } from './types.js';

/** The named wiring lists the verbs edit. */
export type WiringKey = 'mcp' | 'claude_skills' | 'context';

/** Who else declares a name: the layers below the target, a skill. */
interface Declarers {
  /** The layer below the target whose declaration the merge keeps, or null. */
  below: LayerRef | null;
  /** A skill declaring it (and no layer below closing it), or null. */
  skill: string | null;
}

/** Whether the merge of the layers below the target (or an enabled skill) still declares `name`. */
export function declarersBelow(
  key: WiringKey,
  name: string,
  below: EffectiveConfig,
  skills: readonly {
    id: string;
    mcp: readonly { name: string }[];
    claudeSkills: readonly { name: string }[];
  }[],
): Declarers {
  switch (key) {
    case 'mcp': {
      const closed = below.mcpClosed.some((c) => c.value === name);
      const skill = skills.find((s) => s.mcp.some((m) => m.name === name));
      return {
        below: below.mcp.find((m) => m.value.name === name)?.from ?? null,
        skill: skill !== undefined && !closed ? skill.id : null,
      };
    }
    case 'claude_skills': {
      const closed = below.claudeSkillsClosed.some((c) => c.value === name);
      const skill = skills.find((s) => s.claudeSkills.some((c) => c.name === name));
      return {
        below: below.claudeSkills.find((c) => c.value.name === name)?.from ?? null,
        skill: skill !== undefined && !closed ? skill.id : null,
      };
    }
    case 'context':
      // [[context]] is config-only: no skill declares one.
      return { below: below.context.find((c) => c.value.name === name)?.from ?? null, skill: null };
  }
}

type RemoveOutcome =
  /** This file's block went; nothing below declares the name. */
  | 'deleted'
  /** Nothing of this file's; a `!name` marker now hides what is below. */
  | 'closed'
  /** This file's block went, and a marker hides what is below. */
  | 'deleted-and-closed'
  /** The marker is already there: nothing to write. */
  | 'already-closed'
  /** Neither this file nor anything below declares the name. */
  | 'not-declared';

export interface RemovePlan {
  outcome: RemoveOutcome;
  edits: TomlEdit[];
}

export function planRemove(
  key: WiringKey,
  name: string,
  text: string,
  declarers: Declarers,
): RemovePlan {
  const own = declaresEntry(text, key, name);
  const marked = marksRemoved(text, key, name);
  const hidden = declarers.below !== null || declarers.skill !== null;
  const edits: TomlEdit[] = [];
  if (own) edits.push(removeEntry(key, name));
  if (hidden && !marked) edits.push(addRemovalMarker(key, name));
  if (own) return { outcome: hidden ? 'deleted-and-closed' : 'deleted', edits };
  if (marked) return { outcome: 'already-closed', edits };
  return { outcome: hidden ? 'closed' : 'not-declared', edits };
}

interface AddPlan {
  /** The file carried `!name`; the add re-opens it. */
  reopened: boolean;
  /** The file already declared the name; the add replaces it in place. */
  replaced: boolean;
  edits: TomlEdit[];
}

export function planAdd(
  key: WiringKey,
  entry: TomlTable & { name: string },
  text: string,
): AddPlan {
  const reopened = marksRemoved(text, key, entry.name);
  const replaced = declaresEntry(text, key, entry.name);
  return {
    reopened,
    replaced,
    edits: [...(reopened ? [dropRemovalMarker(key, entry.name)] : []), upsertEntry(key, entry)],
  };
}
