import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';

import {
  firstRunKeyFor,
  firstRunView,
  initialFirstRun,
  needsPicker,
  reduceFirstRun,
  stepsFor,
  type FirstRunKey,
  type FirstRunSetup,
  type FirstRunState,
} from './first-run.js';

function setup(overrides: Partial<FirstRunSetup> = {}): FirstRunSetup {
  return {
    projectRoot: '/src/app',
    configPath: '/store/projects/app-123abc/byre.config',
    templates: [
      { id: 'byre/go', description: 'Go' },
      { id: 'byre/node', description: 'Node.js' },
    ],
    agents: [
      { id: 'byre/claude', description: 'Claude Code' },
      { id: 'byre/codex', description: 'Codex' },
    ],
    fixed: {},
    preselect: { template: null, agent: null },
    companionFor: (agent) => (agent === 'byre/claude' ? 'byre/claude-shared-auth' : null),
    storedSharedAuth: () => null,
    ...overrides,
  };
}

function run(s: FirstRunSetup, ...keys: FirstRunKey[]): FirstRunState {
  return keys.reduce((state, key) => reduceFirstRun(s, state, key), initialFirstRun(s));
}

const text = (s: FirstRunSetup, state: FirstRunState, width = 100): string =>
  firstRunView(s, state, width)
    .map((l) => l.text)
    .join('\n');

describe('the first-run picker', () => {
  it('asks template, agent, the shared-auth offer for an agent that has one, then confirms', () => {
    const s = setup();
    expect(stepsFor(s, { template: null, agent: 'byre/claude', sharedAuth: null })).toEqual([
      'template',
      'agent',
      'shared-auth',
      'confirm',
    ]);
    expect(stepsFor(s, { template: null, agent: 'byre/codex', sharedAuth: null })).toEqual([
      'template',
      'agent',
      'confirm',
    ]);
  });

  it('pre-selects the favourites', () => {
    const s = setup({ preselect: { template: 'node', agent: 'byre/codex' } });
    const state = initialFirstRun(s);
    expect(state.cursor).toBe(1);
    expect(run(s, 'enter').cursor).toBe(1);
    expect(run(s, 'enter', 'enter').answers).toEqual({
      template: 'byre/node',
      agent: 'byre/codex',
      sharedAuth: null,
    });
  });

  it('words the offer with exactly what a yes writes, and records the answer', () => {
    const s = setup();
    const atOffer = run(s, 'enter', 'enter');
    expect(atOffer.step).toBe('shared-auth');
    expect(text(s, atOffer)).toContain(
      'yes: adds byre/claude-shared-auth to this project’s skills (its byre.config), and nothing else',
    );
    const done = run(s, 'enter', 'enter', 'up', 'enter', 'toggle', 'enter');
    expect(done).toMatchObject({
      outcome: 'done',
      saveDefaults: true,
      answers: { template: 'byre/go', agent: 'byre/claude', sharedAuth: true },
    });
  });

  it('a stored yes pre-selects yes', () => {
    const s = setup({
      storedSharedAuth: () => true,
      preselect: { template: null, agent: 'byre/claude' },
    });
    const atOffer = run(s, 'enter', 'enter');
    expect(atOffer.cursor).toBe(0);
    expect(run(s, 'enter', 'enter', 'down').cursor).toBe(1);
  });

  it('the summary says what will be written, and where', () => {
    const s = setup();
    const summary = text(s, run(s, 'enter', 'enter', 'up', 'enter'));
    expect(summary).toContain('This writes /store/projects/app-123abc/byre.config:');
    expect(summary).toContain('skills += byre/claude-shared-auth (shared auth)');
    expect(summary).toContain('[ ] remember these answers as my defaults');
  });

  it('flags answer their questions up front; with all answered no picker shows', () => {
    expect(needsPicker(setup({ fixed: { template: 'none', agent: 'byre/codex' } }))).toBe(false);
    expect(needsPicker(setup({ fixed: { template: 'none', agent: 'byre/claude' } }))).toBe(true);
    expect(
      needsPicker(setup({ fixed: { template: 'none', agent: 'byre/claude', sharedAuth: false } })),
    ).toBe(false);
    expect(initialFirstRun(setup({ fixed: { template: 'none' } })).step).toBe('agent');
  });

  it('Home and End move to the first and last option (g and G too), on every question', () => {
    const s = setup();
    expect(run(s, 'end').cursor).toBe(2); // byre/go, byre/node, none
    expect(run(s, 'end', 'home').cursor).toBe(0);
    expect(run(s, 'end', 'enter').answers.template).toBe('none');
    expect(run(s, 'enter', 'end', 'enter').answers.agent).toBe('none');
    expect(run(s, 'enter', 'home', 'enter', 'end').cursor).toBe(1); // the shared-auth no
    expect(firstRunKeyFor('', { home: true })).toBe('home');
    expect(firstRunKeyFor('', { end: true })).toBe('end');
    expect(firstRunKeyFor('g', {})).toBe('home');
    expect(firstRunKeyFor('G', {})).toBe('end');
  });

  it('Esc goes back a step, and cancels from the first; ^c cancels', () => {
    const s = setup();
    expect(run(s, 'enter', 'back').step).toBe('template');
    expect(run(s, 'back').outcome).toBe('cancelled');
    expect(run(s, 'enter', 'cancel').outcome).toBe('cancelled');
  });

  it('escapes package text and fits 48 columns', () => {
    const s = setup({ templates: [{ id: 'evil', description: 'x\u001b[2Jy' }] });
    const lines = firstRunView(s, initialFirstRun(s), 48);
    expect(lines.map((l) => l.text).join('\n')).toContain('x\\x1b[2Jy');
    for (const line of lines) expect(stringWidth(line.text)).toBeLessThanOrEqual(48);
  });
});

describe('the injection offer (adr/0070)', () => {
  const offering = setup({
    injectOffer: (agent) =>
      agent === 'byre/codex'
        ? { key: 'OPENAI_API_KEY', text: 'OPENAI_API_KEY as a bearer token to api.openai.com' }
        : null,
  });

  it('is asked after the agent only when the chosen agent has one, pre-selecting yes', () => {
    expect(stepsFor(offering, { template: null, agent: 'byre/codex', sharedAuth: null })).toEqual([
      'template',
      'agent',
      'inject',
      'confirm',
    ]);
    expect(
      stepsFor(offering, { template: null, agent: 'byre/claude', sharedAuth: null }),
    ).not.toContain('inject');
    // Template, then the second agent (codex): the offer, its cursor on yes.
    const at = run(offering, 'enter', 'down', 'enter');
    expect(at.step).toBe('inject');
    expect(at.cursor).toBe(0);
    expect(text(offering, at, 300)).toContain(
      'OPENAI_API_KEY is set on this host. Keep it out of the box: inject it at the edge instead?',
    );
  });

  it('a yes is kept and said on the summary; a no writes nothing of it', () => {
    const yes = run(offering, 'enter', 'down', 'enter', 'enter');
    expect(yes.step).toBe('confirm');
    expect(yes.inject).toBe(true);
    expect(text(offering, yes, 300)).toContain(
      'OPENAI_API_KEY sealed and injected at the edge (OPENAI_API_KEY as a bearer token to api.openai.com): you set a passphrase next',
    );
    const no = run(offering, 'enter', 'down', 'enter', 'down', 'enter');
    expect(no.inject).toBe(false);
    expect(text(offering, no)).not.toContain('sealed and injected');
  });

  it('a different agent chosen after a yes takes the answer back', () => {
    const back = run(offering, 'enter', 'down', 'enter', 'enter', 'back', 'back', 'up', 'enter');
    expect(back.answers.agent).toBe('byre/claude');
    expect(back.inject).toBeNull();
  });

  it('is never asked without an offer function (the picker of an older setup)', () => {
    expect(stepsFor(setup(), { template: null, agent: 'byre/codex', sharedAuth: null })).toEqual([
      'template',
      'agent',
      'confirm',
    ]);
  });
});
