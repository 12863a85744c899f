// The first-run picker as a pure state machine: the questions a new project
// still needs answered (template, agent, the shared-auth offer, and the
// offer to inject the agent's API key at the edge when the host has it), each
// pre-selected from default.config's favourites, then a summary that says
// what will be written, with save-as-default as a switch. No ink, no IO;
// every name that came from a package or a path is escaped for the screen.

import { sharedAuthQuestion, type OnboardAnswers } from '../../config/onboarding.js';
import { escapeTerminal } from '../../output/escape.js';
import type { CatalogChoice } from './config-editor/types.js';
import { wrapCells } from './config-editor/view.js';

export interface FirstRunSetup {
  projectRoot: string;
  configPath: string;
  templates: readonly CatalogChoice[];
  agents: readonly CatalogChoice[];
  /** Answers given by flags: their questions are not asked. */
  fixed: { template?: string; agent?: string; sharedAuth?: boolean };
  /** default.config's pre-selections. */
  preselect: { template: string | null; agent: string | null };
  /** The companion whose shared-auth offer applies to an agent, or null. */
  companionFor: (agent: string | null) => string | null;
  /** The stored shared-auth answer for an agent (true for a stored yes). */
  storedSharedAuth: (agent: string | null) => boolean | null;
  /**
   * The injection offer for an agent (adr/0070): its key and the recipe in
   * words, when the agent has a recipe and this host's environment holds
   * the key; null otherwise. Absent: never offered.
   */
  injectOffer?: (agent: string | null) => { key: string; text: string } | null;
}

export type FirstRunStep = 'template' | 'agent' | 'shared-auth' | 'inject' | 'confirm';

export interface FirstRunState {
  step: FirstRunStep;
  cursor: number;
  answers: OnboardAnswers;
  saveDefaults: boolean;
  /** The answer to the injection offer: null when it was not made. */
  inject: boolean | null;
  outcome: 'open' | 'done' | 'cancelled';
}

export type FirstRunKey =
  'up' | 'down' | 'home' | 'end' | 'enter' | 'back' | 'toggle' | 'cancel' | 'none';

interface Option {
  value: string;
  label: string;
}

const NONE = 'none';

function choices(list: readonly CatalogChoice[], noneLabel: string): Option[] {
  return [
    ...list.map((c) => ({
      value: c.id,
      label: c.description === '' ? c.id : `${c.id} — ${c.description}`,
    })),
    { value: NONE, label: noneLabel },
  ];
}

function options(setup: FirstRunSetup, state: FirstRunState): Option[] {
  switch (state.step) {
    case 'template':
      return choices(setup.templates, 'none — plain debian:bookworm');
    case 'agent':
      return choices(setup.agents, 'none — a login shell');
    case 'shared-auth': {
      const companion = setup.companionFor(state.answers.agent) ?? '';
      const q = sharedAuthQuestion(state.answers.agent ?? '', companion);
      return [
        { value: 'yes', label: q.yes },
        { value: 'no', label: q.no },
      ];
    }
    case 'inject': {
      const offer = injectOfferOf(setup, state.answers.agent);
      return [
        {
          value: 'yes',
          label: `yes: seal this host’s ${offer?.key ?? ''} into this project’s config (you set a passphrase next) and inject it at the edge (${offer?.text ?? ''}); the box holds only a sentinel`,
        },
        { value: 'no', label: 'no: this project’s config gets no credential' },
      ];
    }
    case 'confirm':
      return [];
  }
}

function injectOfferOf(
  setup: FirstRunSetup,
  agent: string | null,
): { key: string; text: string } | null {
  return setup.injectOffer?.(agent) ?? null;
}

/** The steps still to ask, in order, given the answers so far. */
export function stepsFor(setup: FirstRunSetup, answers: OnboardAnswers): FirstRunStep[] {
  const steps: FirstRunStep[] = [];
  if (setup.fixed.template === undefined) steps.push('template');
  if (setup.fixed.agent === undefined) steps.push('agent');
  if (setup.fixed.sharedAuth === undefined && setup.companionFor(answers.agent) !== null) {
    steps.push('shared-auth');
  }
  if (injectOfferOf(setup, answers.agent) !== null) steps.push('inject');
  steps.push('confirm');
  return steps;
}

/** Whether anything is left to ask: with every answer fixed, no picker shows. */
export function needsPicker(setup: FirstRunSetup): boolean {
  const answers = fixedAnswers(setup);
  return stepsFor(setup, answers).length > 1;
}

function fixedAnswers(setup: FirstRunSetup): OnboardAnswers {
  const agent = setup.fixed.agent ?? null;
  return {
    template: setup.fixed.template ?? null,
    agent,
    sharedAuth: setup.fixed.sharedAuth ?? null,
  };
}

function matches(id: string, wanted: string | null): boolean {
  if (wanted === null) return false;
  const bare = (s: string): string => (s.startsWith('byre/') ? s.slice(5) : s);
  return id === wanted || bare(id) === bare(wanted);
}

/** The cursor a step opens on: the favourite, else the first option. */
function cursorFor(setup: FirstRunSetup, step: FirstRunStep, answers: OnboardAnswers): number {
  const state: FirstRunState = {
    step,
    cursor: 0,
    answers,
    saveDefaults: false,
    inject: null,
    outcome: 'open',
  };
  const list = options(setup, state);
  const wanted =
    step === 'template'
      ? (answers.template ?? setup.preselect.template)
      : step === 'agent'
        ? (answers.agent ?? setup.preselect.agent)
        : step === 'shared-auth'
          ? (answers.sharedAuth ?? setup.storedSharedAuth(answers.agent)) === true
            ? 'yes'
            : 'no'
          : step === 'inject'
            ? 'yes'
            : null;
  return Math.max(
    0,
    list.findIndex((o) => matches(o.value, wanted)),
  );
}

export function initialFirstRun(setup: FirstRunSetup): FirstRunState {
  const answers = fixedAnswers(setup);
  const step = stepsFor(setup, answers)[0] ?? 'confirm';
  return {
    step,
    cursor: cursorFor(setup, step, answers),
    answers,
    saveDefaults: false,
    inject: null,
    outcome: 'open',
  };
}

function goTo(setup: FirstRunSetup, state: FirstRunState, step: FirstRunStep): FirstRunState {
  return { ...state, step, cursor: cursorFor(setup, step, state.answers) };
}

function answer(state: FirstRunState, value: string): OnboardAnswers {
  switch (state.step) {
    case 'template':
      return { ...state.answers, template: value };
    case 'agent':
      // A new agent asks its own shared-auth question.
      return { ...state.answers, agent: value, sharedAuth: null };
    case 'shared-auth':
      return { ...state.answers, sharedAuth: value === 'yes' };
    case 'inject':
    case 'confirm':
      return state.answers;
  }
}

export function reduceFirstRun(
  setup: FirstRunSetup,
  state: FirstRunState,
  key: FirstRunKey,
): FirstRunState {
  if (state.outcome !== 'open') return state;
  const steps = stepsFor(setup, state.answers);
  const at = steps.indexOf(state.step);
  const count = options(setup, state).length;
  switch (key) {
    case 'cancel':
      return { ...state, outcome: 'cancelled' };
    case 'up':
      return { ...state, cursor: Math.max(0, state.cursor - 1) };
    case 'down':
      return { ...state, cursor: Math.min(Math.max(0, count - 1), state.cursor + 1) };
    case 'home':
      return { ...state, cursor: 0 };
    case 'end':
      return { ...state, cursor: Math.max(0, count - 1) };
    case 'toggle':
      return state.step === 'confirm' ? { ...state, saveDefaults: !state.saveDefaults } : state;
    case 'back': {
      const previous = steps[at - 1];
      return previous === undefined
        ? { ...state, outcome: 'cancelled' }
        : goTo(setup, state, previous);
    }
    case 'enter': {
      if (state.step === 'confirm') return { ...state, outcome: 'done' };
      const chosen = options(setup, state)[state.cursor];
      if (chosen === undefined) return state;
      const next = {
        ...state,
        answers: answer(state, chosen.value),
        // A new agent makes its own offer; this step's answer is the offer's.
        inject:
          state.step === 'inject'
            ? chosen.value === 'yes'
            : state.step === 'agent'
              ? null
              : state.inject,
      };
      const after = stepsFor(setup, next.answers);
      return goTo(setup, next, after[after.indexOf(state.step) + 1] ?? 'confirm');
    }
    case 'none':
      return state;
  }
}

/** The structural subset of ink's Key the picker reads. */
export interface FirstRunKeyFlags {
  upArrow?: boolean;
  downArrow?: boolean;
  return?: boolean;
  escape?: boolean;
  leftArrow?: boolean;
  rightArrow?: boolean;
  home?: boolean;
  end?: boolean;
  ctrl?: boolean;
}

export function firstRunKeyFor(input: string, key: FirstRunKeyFlags): FirstRunKey {
  if (key.ctrl === true && input === 'c') return 'cancel';
  if (key.return === true) return 'enter';
  if (key.escape === true || key.leftArrow === true) return 'back';
  if (key.upArrow === true || input === 'k') return 'up';
  if (key.downArrow === true || input === 'j') return 'down';
  // As the box picker and the config editor take them.
  if (key.home === true || input === 'g') return 'home';
  if (key.end === true || input === 'G') return 'end';
  if (input === ' ' || input === 'd' || key.rightArrow === true) return 'toggle';
  return 'none';
}

export interface FirstRunLine {
  text: string;
  tone: 'title' | 'row' | 'selected' | 'dim' | 'hint';
}

function block(
  text: string,
  width: number,
  tone: FirstRunLine['tone'],
  prefix = '',
  hang = '',
): FirstRunLine[] {
  return wrapCells(text, Math.max(10, width - prefix.length)).map((line, i) => ({
    text: (i === 0 ? prefix : hang) + line,
    tone,
  }));
}

const TITLES: Record<Exclude<FirstRunStep, 'confirm' | 'inject'>, string> = {
  template: 'Which template should this project’s box build on?',
  agent: 'Which agent should it run?',
  'shared-auth': '',
};

/** The screen's lines at `width` cells. */
export function firstRunView(
  setup: FirstRunSetup,
  state: FirstRunState,
  width: number,
): FirstRunLine[] {
  const esc = escapeTerminal;
  const lines: FirstRunLine[] = [
    ...block(`New project: ${esc(setup.projectRoot)}`, width, 'title'),
  ];
  if (state.step === 'confirm') {
    const companion = setup.companionFor(state.answers.agent);
    lines.push(...block(`This writes ${esc(setup.configPath)}:`, width, 'row'));
    const show = (v: string | null): string =>
      v === null ? '(not set: the cascade decides)' : esc(v);
    lines.push(...block(`template = ${show(state.answers.template)}`, width, 'row', '  '));
    lines.push(...block(`agent = ${show(state.answers.agent)}`, width, 'row', '  '));
    if (state.answers.sharedAuth === true && companion !== null) {
      lines.push(...block(`skills += ${esc(companion)} (shared auth)`, width, 'row', '  '));
    }
    const offer = injectOfferOf(setup, state.answers.agent);
    if (state.inject === true && offer !== null) {
      lines.push(
        ...block(
          `${esc(offer.key)} sealed and injected at the edge (${esc(offer.text)}): you set a passphrase next`,
          width,
          'row',
          '  ',
        ),
      );
    }
    lines.push(
      ...block(
        `${state.saveDefaults ? '[x]' : '[ ]'} remember these answers as my defaults (default.config; they only pre-select the next new project’s answers)`,
        width,
        'selected',
        '› ',
        '    ',
      ),
    );
    lines.push(...block('↵ write it · space remember · Esc back · ^c cancel', width, 'hint'));
    return lines;
  }
  if (state.step === 'shared-auth') {
    const companion = setup.companionFor(state.answers.agent) ?? '';
    lines.push(
      ...block(
        esc(sharedAuthQuestion(state.answers.agent ?? '', companion).question),
        width,
        'row',
      ),
    );
  } else if (state.step === 'inject') {
    const offer = injectOfferOf(setup, state.answers.agent);
    lines.push(
      ...block(
        `${esc(offer?.key ?? '')} is set on this host. Keep it out of the box: inject it at the edge instead?`,
        width,
        'row',
      ),
    );
  } else {
    lines.push(...block(TITLES[state.step], width, 'row'));
  }
  options(setup, state).forEach((option, i) => {
    const selected = i === state.cursor;
    lines.push(
      ...block(
        esc(option.label),
        width,
        selected ? 'selected' : 'row',
        selected ? '› ' : '  ',
        '    ',
      ),
    );
  });
  lines.push(
    ...block('↑↓ move · Home/End first/last · ↵ choose · Esc back · ^c cancel', width, 'hint'),
  );
  return lines;
}
