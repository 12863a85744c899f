// The first-run questions as data: what default.config pre-selects, whether
// the shared-auth offer applies, and exactly what each answer writes: the
// project's byre.config (template, agent, and the companion in its skills for
// a shared-auth yes, nothing else), and with save-as-default the favourites
// in default.config, which only change what the next question pre-selects.
// Pure; commands/onboard.ts reads and writes.

import type { RawLayer } from './schema.js';
import { applyEdits, type TomlEdit } from '../tomldoc/index.js';

/** What default.config says about new projects (never part of a box). */
export interface Favourites {
  template: string | null;
  agent: string | null;
  /** agent (bare name) -> companion, for a stored shared-auth yes. */
  sharedAuth: Record<string, string>;
  skipQuestions: boolean;
  /** default.config's own skills: a companion there is granted machine-wide already. */
  machineSkills: string[];
}

export interface OnboardAnswers {
  /** A template id or `none`; null leaves the key unwritten (the cascade decides). */
  template: string | null;
  agent: string | null;
  /** null when the offer does not apply, or was not answered. */
  sharedAuth: boolean | null;
}

const bare = (id: string): string => (id.startsWith('byre/') ? id.slice('byre/'.length) : id);

export function readFavourites(raw: RawLayer | null): Favourites {
  const stored = raw?.defaults?.shared_auth ?? raw?.shared_auth;
  const sharedAuth = Array.isArray(stored)
    ? Object.fromEntries(stored.map((agent) => [agent, `${agent}-shared-auth`]))
    : { ...(stored ?? {}) };
  return {
    template: raw?.template ?? null,
    agent: raw?.agent ?? null,
    sharedAuth,
    skipQuestions: raw?.defaults?.skip_questions === true,
    machineSkills: (raw?.skills ?? []).filter((s) => !s.startsWith('!')),
  };
}

/**
 * The companion whose offer applies to `agent`: one that declares
 * shared_auth_for it, unless default.config already grants it to every box
 * (then the answer could not matter). `companions` and `canon` use catalog ids.
 */
export function offeredCompanion(
  agent: string | null,
  companions: Readonly<Record<string, string>>,
  favourites: Favourites,
  canon: (reference: string) => string,
): string | null {
  if (agent === null || agent === 'none') return null;
  const companion = companions[canon(agent)] ?? null;
  if (companion === null) return null;
  return favourites.machineSkills.some((s) => canon(s) === companion) ? null : companion;
}

/** The stored shared-auth answer for `agent`: true for a stored yes, else null. */
export function storedSharedAuth(agent: string | null, favourites: Favourites): boolean | null {
  if (agent === null) return null;
  return favourites.sharedAuth[bare(agent)] !== undefined ||
    favourites.sharedAuth[agent] !== undefined
    ? true
    : null;
}

/** The project's byre.config edits for these answers: the companion only on a yes. */
export function projectEdits(answers: OnboardAnswers, companion: string | null): TomlEdit[] {
  const edits: TomlEdit[] = [];
  if (answers.template !== null)
    edits.push({ op: 'set', path: ['template'], value: answers.template });
  if (answers.agent !== null) edits.push({ op: 'set', path: ['agent'], value: answers.agent });
  if (answers.sharedAuth === true && companion !== null) {
    edits.push({ op: 'array-add', path: ['skills'], value: companion });
  }
  return edits;
}

/** The byre.config text onboarding writes: a header saying what the file is, then the answers. */
export function onboardingText(projectRoot: string, edits: readonly TomlEdit[]): string {
  const header = [
    `# byre project config for ${projectRoot.replace(/[\r\n]/g, '?')}`,
    '# The consent document for this project’s boxes: everything they may reach is',
    '# granted here or in the layers below it (`byre status` shows the result).',
  ];
  return applyEdits(`${header.join('\n')}\n`, edits);
}

/** default.config edits that store these answers as the next project's pre-selections. */
export function favouriteEdits(
  answers: OnboardAnswers,
  companion: string | null,
  favourites: Favourites,
): TomlEdit[] {
  const edits: TomlEdit[] = [];
  if (answers.template !== null)
    edits.push({ op: 'set', path: ['template'], value: answers.template });
  if (answers.agent !== null) edits.push({ op: 'set', path: ['agent'], value: answers.agent });
  if (answers.agent !== null && answers.sharedAuth !== null && companion !== null) {
    const table = { ...favourites.sharedAuth };
    delete table[answers.agent];
    if (answers.sharedAuth) table[bare(answers.agent)] = bare(companion);
    else delete table[bare(answers.agent)];
    edits.push(
      Object.keys(table).length === 0
        ? { op: 'delete', path: ['defaults', 'shared_auth'] }
        : { op: 'set', path: ['defaults', 'shared_auth'], value: table },
    );
  }
  return edits;
}

/** One line naming the answers, for "configured from your stored answers". */
export function answersText(answers: OnboardAnswers, companion: string | null): string {
  const parts = [
    `template ${answers.template ?? '(cascade default)'}`,
    `agent ${answers.agent ?? '(cascade default)'}`,
  ];
  if (companion !== null && answers.sharedAuth !== null) {
    parts.push(
      answers.sharedAuth
        ? `shared auth: yes (${companion} in this project’s skills)`
        : 'shared auth: no',
    );
  }
  return parts.join(', ');
}

/** The offer, worded with exactly what the answer writes. */
export function sharedAuthQuestion(
  agent: string,
  companion: string,
): { question: string; yes: string; no: string } {
  return {
    question: `Share one ${bare(agent)} login across your projects?`,
    yes: `yes: adds ${companion} to this project’s skills (its byre.config), and nothing else`,
    no: 'no: this project’s box logs in on its own',
  };
}
