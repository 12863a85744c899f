// `byre config`'s decision table on the fake: what it refuses before the
// screen opens, what each way out of the screen says, what a save writes (and
// refuses when the file changed under it), and the Volume data clear against
// a fake engine pool. The screen itself (ink) is stood in for by a script of
// the effects it would ask for; its model is tested in tui/model/.

import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { FakeEngine } from '../../test/support/fake-engine.js';
import { fakeIo, type FakeIo } from '../../test/support/io.js';
import { testTempDir } from '../../test/support/temp.js';
import type { EnginePool } from '../engine/pool.js';
import { ByreError, ConfigError } from '../errors.js';
import { LABEL } from '../gen/names.js';
import { projectIdFor } from '../project/identity.js';
import type { ConfigEditorRun } from '../tui/config-editor.js';
import type { EditorEvent, EditorState } from '../tui/model/config-editor/state.js';
import { configCommand } from './config.js';

/** What the stand-in screen does with the run it is handed; returns the state it quits in. */
type Screen = (run: ConfigEditorRun) => Promise<Pick<EditorState, 'text' | 'saved'>>;
let screen: Screen = async (run) => ({ text: run.text, saved: run.text });
const opened = vi.fn();

vi.mock('../tui/config-editor.js', () => ({
  runConfigEditor: async (run: ConfigEditorRun) => {
    opened();
    return screen(run);
  },
}));

const stdinTty = Object.getOwnPropertyDescriptor(process.stdin, 'isTTY');
beforeEach(() => {
  Object.defineProperty(process.stdin, 'isTTY', { value: true, configurable: true });
  opened.mockClear();
  screen = async (run) => ({ text: run.text, saved: run.text });
});
afterEach(() => {
  if (stdinTty === undefined) Reflect.deleteProperty(process.stdin, 'isTTY');
  else Object.defineProperty(process.stdin, 'isTTY', stdinTty);
});

interface World {
  io: FakeIo;
  /** The project's config in the store: the file `byre config` edits. */
  config: string;
}

function world(tty = true): World {
  const root = testTempDir('config-cmd');
  const project = path.join(root, 'work', 'app');
  const home = path.join(root, 'store');
  mkdirSync(project, { recursive: true });
  const io = fakeIo({
    cwd: project,
    env: { BYRE_HOME: home, HOME: root, PATH: process.env['PATH'], TERM: 'dumb' },
    stdinIsTty: tty,
    stdoutIsTty: tty,
  });
  return { io, config: path.join(home, 'projects', projectIdFor(project), 'byre.config') };
}

function putConfig(w: World, text: string): void {
  mkdirSync(path.dirname(w.config), { recursive: true });
  writeFileSync(w.config, text);
}

/** The state a save is asked with: the buffer `text` over what was last saved. */
function saving(text: string, saved: string): EditorState {
  return { text, saved, pending: null } as unknown as EditorState;
}

function poolOf(...engines: FakeEngine[]): EnginePool {
  return {
    members: engines.map((engine) => ({ name: engine.facts.name, state: 'ok' as const, engine })),
  };
}

describe('byre config', () => {
  it('refuses without a terminal, before reading or opening anything', async () => {
    const w = world(false);
    const error = await configCommand(w.io, {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ByreError);
    expect((error as ByreError).rule).toBe('config.no-tty');
    expect((error as ByreError).remedy).toContain(w.config);
    expect(opened).not.toHaveBeenCalled();
    expect(existsSync(w.config)).toBe(false);
  });

  it('refuses a file that does not load, located, before the screen opens', async () => {
    const w = world();
    putConfig(w, 'agent = \n');
    const error = await configCommand(w.io, {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).location?.file).toBe(w.config);
    expect(opened).not.toHaveBeenCalled();
    expect(readFileSync(w.config, 'utf8')).toBe('agent = \n');
  });

  it('says unchanged when the screen quits without a save, and writes nothing', async () => {
    const w = world();
    await configCommand(w.io, {});
    expect(opened).toHaveBeenCalledOnce();
    expect(w.io.err).toContain(`${w.config} unchanged`);
    expect(w.io.err).not.toContain('discarded');
    expect(existsSync(w.config)).toBe(false);
  });

  it('says so when the screen quits with unsaved changes', async () => {
    const w = world();
    screen = async () => ({ text: 'egress = ["example.com"]\n', saved: '' });
    await configCommand(w.io, {});
    expect(w.io.err).toContain(`${w.config} unchanged`);
    expect(w.io.err).toContain('unsaved changes were discarded');
    expect(existsSync(w.config)).toBe(false);
  });

  it('saves through the config writer: a new file opens with its seed, then the buffer', async () => {
    const w = world();
    const body = 'egress = ["example.com"]\n';
    let event: EditorEvent | undefined;
    screen = async (run) => {
      event = await run.effects.save(saving(body, ''));
      return { text: body, saved: body };
    };
    await configCommand(w.io, {});
    expect(event).toMatchObject({ kind: 'saved', rebased: false });
    const written = readFileSync(w.config, 'utf8');
    expect(written.endsWith(body)).toBe(true);
    expect(w.io.err).toContain(`saved ${w.config}`);
  });

  it('refuses a save over a file that changed on disk when the edit cannot be replayed', async () => {
    const w = world();
    putConfig(w, 'egress = ["a.example"]\n');
    let event: EditorEvent | undefined;
    screen = async (run) => {
      writeFileSync(w.config, 'egress = ["b.example"]\n');
      event = await run.effects.save(saving('egress = ["c.example"]\n', run.text));
      return { text: run.text, saved: run.text };
    };
    await configCommand(w.io, {});
    expect(event).toMatchObject({ kind: 'save-failed' });
    expect((event as { message: string }).message).toContain('changed on disk');
    expect(readFileSync(w.config, 'utf8')).toBe('egress = ["b.example"]\n');
  });

  describe('Volume data clear, on the fake pool', () => {
    const VOLUME = 'byre-machine-u1000-cache';

    async function clear(pool: EnginePool): Promise<EditorEvent | undefined> {
      const w = world();
      let event: EditorEvent | undefined;
      screen = async (run) => {
        event = await run.effects.clearVolume(VOLUME);
        return { text: run.text, saved: run.text };
      };
      await configCommand(w.io, {}, { pool });
      return event;
    }

    it('deletes the volume on every engine that has it when no byre box mounts it', async () => {
      const docker = new FakeEngine({ name: 'docker' });
      const podman = new FakeEngine({ name: 'podman' });
      docker.volumes.set(VOLUME, {});
      podman.volumes.set(VOLUME, {});
      const event = await clear(poolOf(docker, podman));
      expect(event).toMatchObject({ kind: 'volume-cleared', ok: true });
      expect(docker.volumes.has(VOLUME)).toBe(false);
      expect(podman.volumes.has(VOLUME)).toBe(false);
    });

    it('keeps it while a running byre box on any engine mounts it', async () => {
      const docker = new FakeEngine({ name: 'docker' });
      const podman = new FakeEngine({ name: 'podman' });
      docker.volumes.set(VOLUME, {});
      podman.volumes.set(VOLUME, {});
      podman.addContainer({
        name: 'byre-other',
        running: true,
        labels: { [LABEL.project]: 'other-1a2b3c' },
        volumes: [VOLUME],
      });
      const event = await clear(poolOf(docker, podman));
      expect(event).toMatchObject({ kind: 'volume-cleared', ok: false });
      expect((event as { message: string }).message).toContain('1 running byre box mounts it');
      expect(docker.volumes.has(VOLUME)).toBe(true);
      expect(podman.volumes.has(VOLUME)).toBe(true);
    });
  });
});
