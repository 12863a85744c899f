// develop's first-run step over a real temp store and the bundled catalog:
// the picker is asked only when stdin and stderr are both terminals, what
// develop says after each way of onboarding (flags, stored answers, answers
// saved as defaults), silence and an untouched store on an onboarded project,
// and a refusal or a cancel leaving the store as it found it. The picker
// itself is replaced (an ink screen; the TUI tier drives the real one).

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { PassThrough } from 'node:stream';
import { beforeEach, describe, expect, it, vi } from 'vitest';

import { fakeIo, typedOn, type FakeIo } from '../../test/support/io.js';
import { useTempDir } from '../../test/support/temp.js';
import type { OnboardAnswers } from '../config/onboarding.js';
import { ByreError } from '../errors.js';
import { resolveProjectContext, type ProjectContext } from '../project/context.js';
import type { FirstRunSetup } from '../tui/model/first-run.js';
import { firstRun } from './first-run.js';

type Answered = { answers: OnboardAnswers; saveDefaults: boolean; inject?: boolean | null } | null;

const picker = vi.hoisted(() => ({
  shown: [] as FirstRunSetup[],
  answer: null as Answered,
}));

vi.mock('../tui/first-run.js', () => ({
  askFirstRun: async (setup: FirstRunSetup): Promise<Answered> => {
    picker.shown.push(setup);
    return picker.answer;
  },
}));

interface World {
  home: string;
  io: FakeIo;
  ctx: ProjectContext;
}

let w: World;

useTempDir('first-run', async (tmp) => {
  const dir = path.join(tmp, 'proj');
  // A store path with a control character: what develop prints shows it, never sends it.
  const home = path.join(tmp, 'st\u001b[2Jore');
  mkdirSync(dir);
  mkdirSync(path.join(tmp, 'user'));
  const io = fakeIo({
    cwd: dir,
    env: { BYRE_HOME: home, HOME: path.join(tmp, 'user'), PATH: '/usr/bin:/bin' },
  });
  w = { home, io, ctx: await resolveProjectContext(dir, io.env) };
});

beforeEach(() => {
  picker.shown = [];
  picker.answer = null;
});

const shown = (home: string): string => home.replace('\u001b', '\\x1b');
const config = (): string => readFileSync(w.ctx.project.config, 'utf8');

function onboardedLines(): string[] {
  return [
    `byre: wrote this project's config: ${shown(w.ctx.project.config)}`,
    '      `byre config` edits it (on screen, every grant with the layer it comes from);',
    '      `byre status` names every file of the cascade, and docs/CONFIG.md lists every key',
  ];
}

const lines = (): string[] => w.io.err.split('\n').filter((l) => l !== '');

const terminal = (stderrIsTty: boolean | undefined): FakeIo =>
  fakeIo({
    ...w.io,
    stdinIsTty: true,
    ...(stderrIsTty === undefined ? {} : { stderrIsTty }),
    stdout: w.io.stdout,
    stderr: w.io.stderr,
  });

async function refusal(run: Promise<void>): Promise<ByreError> {
  const error = await run.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof ByreError)) throw new Error(`expected a ByreError, got ${String(error)}`);
  return error;
}

describe('firstRun', () => {
  it('off a terminal: the flags are written, and develop says where the config is and what edits it', async () => {
    await firstRun(w.io, w.ctx, { template: 'node', agent: 'none' });
    expect(picker.shown).toEqual([]);
    expect(config()).toMatch(/^template = "node"$/m);
    expect(lines()).toEqual(onboardedLines());
    expect(w.io.err).not.toContain('\u001b');
  });

  it.each([
    ['stderr is not a terminal', false],
    ['stderr is not known to be a terminal', undefined],
  ])('a terminal on stdin alone does not open the picker (%s)', async (_, stderrIsTty) => {
    await firstRun(terminal(stderrIsTty), w.ctx, {});
    expect(picker.shown).toEqual([]);
    expect(existsSync(w.ctx.project.onboarded)).toBe(true);
  });

  it('on a terminal: the picker’s answers are written; saved as defaults, develop says so', async () => {
    picker.answer = {
      answers: { template: 'python', agent: 'none', sharedAuth: null },
      saveDefaults: true,
    };
    await firstRun(terminal(true), w.ctx, {});
    expect(picker.shown).toHaveLength(1);
    expect(picker.shown[0]?.configPath).toBe(w.ctx.project.config);
    expect(config()).toMatch(/^template = "python"$/m);
    expect(readFileSync(w.ctx.store.defaultConfig, 'utf8')).toMatch(/^template = "python"$/m);
    expect(lines()).toEqual([
      'byre: saved these answers as your defaults in default.config; they pre-select the next new project’s answers',
      ...onboardedLines(),
    ]);
  });

  it('on a terminal, answers not saved as defaults: only where the config is', async () => {
    picker.answer = {
      answers: { template: 'python', agent: 'none', sharedAuth: null },
      saveDefaults: false,
    };
    await firstRun(terminal(true), w.ctx, {});
    expect(existsSync(w.ctx.store.defaultConfig)).toBe(false);
    expect(lines()).toEqual(onboardedLines());
  });

  it('onboard.cancelled: a cancelled picker writes nothing and says nothing', async () => {
    const error = await refusal(firstRun(terminal(true), w.ctx, {}));
    expect(error).toMatchObject({ rule: 'onboard.cancelled', exitCode: 1 });
    expect(existsSync(w.ctx.project.dir)).toBe(false);
    expect(w.io.err).toBe('');
  });

  it('defaults.skip_questions: configured from the stored answers unasked, and how to change them', async () => {
    mkdirSync(w.home, { recursive: true });
    writeFileSync(
      w.ctx.store.defaultConfig,
      'template = "go"\nagent = "none"\n[defaults]\nskip_questions = true\n',
    );
    await firstRun(terminal(true), w.ctx, {});
    expect(picker.shown).toEqual([]);
    expect(config()).toMatch(/^template = "go"$/m);
    expect(lines()).toEqual([
      'byre: configured from your stored answers (defaults.skip_questions in default.config): template go, agent none; byre config --global changes them',
      ...onboardedLines(),
    ]);
  });

  it('an onboarded project: nothing asked, written or said', async () => {
    mkdirSync(w.ctx.project.dir, { recursive: true });
    writeFileSync(w.ctx.project.config, 'apt = ["jq"]\n');
    writeFileSync(w.ctx.project.onboarded, 'byre develop onboarded this project\n');
    await firstRun(terminal(true), w.ctx, {});
    expect(picker.shown).toEqual([]);
    expect(config()).toBe('apt = ["jq"]\n');
    expect(w.io.err).toBe('');
  });

  it('onboard.template-missing: an unknown --template is refused before anything is written', async () => {
    const error = await refusal(firstRun(w.io, w.ctx, { template: 'no-such-template' }));
    expect(error).toMatchObject({ rule: 'onboard.template-missing', exitCode: 1 });
    expect(existsSync(w.home)).toBe(false);
    expect(w.io.err).toBe('');
  });
});

describe('the injection offer taken (adr/0070)', () => {
  it("seals this host's key for injection at the edge into the new config, never its value in clear", async () => {
    const value = 'sk-host-codex-value-1';
    picker.answer = {
      answers: { template: 'none', agent: 'byre/codex', sharedAuth: null },
      saveDefaults: false,
      inject: true,
    };
    // A new identity: the passphrase, then, once asked, again to confirm.
    const tty = typedOn('a good passphrase\r');
    (tty.output as PassThrough).on('data', (d: Buffer) => {
      if (d.toString().includes('the same passphrase again')) {
        (tty.input as unknown as PassThrough).write('a good passphrase\r');
      }
    });
    const io = fakeIo({
      ...terminal(true),
      env: { ...w.io.env, OPENAI_API_KEY: value },
      terminal: tty,
    });
    await firstRun(io, w.ctx, {});
    // The offer was made on the picker, for the host's key.
    expect(picker.shown[0]?.injectOffer?.('byre/codex')?.key).toBe('OPENAI_API_KEY');
    const text = config();
    expect(text).toMatch(/OPENAI_API_KEY = "injected:/);
    expect(text).toContain(
      '\n[[inject.OPENAI_API_KEY]]\nhosts = ["api.openai.com"]\nbearer = true\n',
    );
    expect(text).not.toContain(value);
    expect(w.io.err).toContain(
      "sealing this host's OPENAI_API_KEY for injection at the edge (OPENAI_API_KEY as a bearer token to api.openai.com)",
    );
    expect(w.io.err).not.toContain(value);
  });
});
