// `byre config [--global | --layer <name>]`: the keyboard-driven editor over
// one file of the cascade. Everything the screen needs is read here first; a
// file that does not load (this one, or one beneath it) is refused before the
// screen opens, located. Saves go through the config writer under the setup
// lock; nothing else is written.

import { say } from '../output/notes.js';
import path from 'node:path';

import { containmentInput, containmentRefusalsOf } from '../containment/check.js';
import { enginePool } from '../engine/pool.js';
import type { CommandDeps } from './deps.js';
import { readWallRecord } from '../network/wall-log.js';
import { clearMachineVolume } from '../lifecycle/volume-data.js';
import { MAX_CONFIG_BYTES } from '../config/parse.js';
import {
  hostPathExists,
  layerEntryNames,
  readLayersBelow,
  type LayerFile,
} from '../config/read.js';
import { readConfigForEdit, writeConfig } from '../config/write.js';
import { ByreError, ConfigError } from '../errors.js';
import { editText } from '../hostenv/editor.js';
import type { HostReaders } from '../hostenv/resolve.js';
import type { Io } from '../io.js';
import { applyEdits } from '../tomldoc/index.js';
import { belowKey, issueLine, parseBuffer } from '../tui/model/config-editor/derive.js';
import type { EditorEvent, EditorState } from '../tui/model/config-editor/state.js';
import type { Below, EditorFile, EditorWorld } from '../tui/model/config-editor/types.js';
import { colorWanted } from '../tui/model/terminal.js';
import { resolveTarget, type ConfigTarget, type TargetFlags } from './config-target.js';
import {
  hostEnvReaders,
  packageChoices,
  plantedLinkIssues,
  projectDeclinedRoots,
  templateLookup,
  userHome,
} from './load.js';

export type ConfigOptions = TargetFlags;
/** Host env values, each read once: git is asked per key, not per keypress. */
function memoReaders(readers: HostReaders): HostReaders {
  const cache = new Map<string, string | null>();
  const once = (key: string, read: () => string | null): string | null => {
    if (!cache.has(key)) cache.set(key, read());
    return cache.get(key) ?? null;
  };
  return {
    git: (key) => once(`git:${key}`, () => readers.git(key)),
    env: (name) => once(`env:${name}`, () => readers.env(name)),
    tz: () => once('tz:', () => readers.tz()),
  };
}

function describeSaveFailure(error: unknown): string {
  if (error instanceof ConfigError) return error.issues.map(issueLine).join('\n');
  if (error instanceof ByreError) {
    return error.remedy === undefined ? error.message : `${error.message} — ${error.remedy}`;
  }
  throw error;
}

export async function configCommand(
  io: Io,
  opts: ConfigOptions,
  deps: Pick<CommandDeps, 'pool'> = {},
): Promise<void> {
  const target = await resolveTarget(io, opts);
  const { file, ctx: project } = target;
  const home = project.store.home;
  // resolveTarget wrote nothing: the store and the path record are made at the first save.
  const stdinTty = io.stdinIsTty && process.stdin.isTTY === true;
  if (!stdinTty || !io.stdoutIsTty) {
    throw new ByreError('byre config is an interactive editor and needs a terminal', {
      rule: 'config.no-tty',
      remedy: `edit ${file.path} by hand (byre status shows the result)`,
    });
  }

  // Refused before the screen opens: this file, then the files beneath it.
  const current = readConfigForEdit(file);
  const editorFile: EditorFile = { path: file.path, kind: file.kind, name: file.name };
  const parsed = parseBuffer(current.text, editorFile);
  if (parsed.raw === null) throw new ConfigError(parsed.issues);
  const known = packageChoices(home);
  const readBelow = belowReader(home, editorFile, known.canon);
  const opened = readBelow(current.text);
  if (opened.issues.length > 0) throw new ConfigError(opened.issues);

  const roots = projectDeclinedRoots(io, project);
  const world = editorWorld(io, project, editorFile, known, roots);
  const save = saveEdits(target, current);

  const { runConfigEditor } = await import('../tui/config-editor.js');
  const dumb = io.env['TERM'] === 'dumb';
  const final = await runConfigEditor({
    world,
    text: current.text,
    below: opened.below,
    color: colorWanted(io.env),
    altScreen: !dumb,
    input: process.stdin,
    output: process.stdout,
    effects: {
      save,
      clearVolume: async (volume) => ({
        kind: 'volume-cleared',
        ...(await clearMachineVolume(deps.pool ?? enginePool(roots, io.env, null), volume)),
      }),
      reloadBelow: async (state) => {
        const read = readBelow(state.text);
        return { kind: 'below-loaded', below: read.below, issues: read.issues };
      },
    },
    external: (text, suffix) => ({
      text: editText({
        env: io.env,
        declinedRoots: roots,
        name: suffix === '.md' ? 'instructions.md' : `${path.basename(file.path)}.toml`,
        initial: text,
        help: [],
        maxBytes: MAX_CONFIG_BYTES,
        verbatim: true,
      }),
    }),
  });
  const wrote = final.saved !== current.text;
  say(io.stderr, wrote ? `saved ${file.path}` : `${file.path} unchanged`);
  if (final.text !== final.saved) say(io.stderr, 'unsaved changes were discarded');
}

/** The reader of the layers beneath the edited buffer, run at open and again when its template or extends change. */
function belowReader(
  home: string,
  editorFile: EditorFile,
  canon: ReturnType<typeof packageChoices>['canon'],
): (text: string) => { below: Below; issues: ConfigError['issues'] } {
  return (text) => {
    const raw = parseBuffer(text, editorFile).raw;
    const layer: LayerFile = {
      ref: { kind: editorFile.kind, name: editorFile.name, path: editorFile.path },
      text,
      value: raw === null ? null : raw,
      issues: [],
      warnings: [],
    };
    const read = readLayersBelow({ home, bundledTemplate: templateLookup(home), canon }, layer);
    return {
      below: { key: belowKey(raw, editorFile), layers: read.layers, template: read.template },
      issues: read.issues,
    };
  };
}

/** What each edit is checked against: the packages, layers, host readers and develop's containment rules. */
function editorWorld(
  io: Io,
  project: ConfigTarget['ctx'],
  editorFile: EditorFile,
  known: ReturnType<typeof packageChoices>,
  roots: ReturnType<typeof projectDeclinedRoots>,
): EditorWorld {
  const home = project.store.home;
  return {
    ...known,
    file: editorFile,
    layers: layerEntryNames(home),
    readers: memoReaders(hostEnvReaders(io, roots)),
    hostExists: hostPathExists,
    plantedLinks: plantedLinkIssues(project, userHome(io)),
    userHome: userHome(io),
    // develop's own containment rules, on every edit: a mount or seed that
    // reaches the store, the executable or the runtime directory is refused
    // inline, never saved for develop and status to refuse later.
    containment: (config, skills) =>
      containmentRefusalsOf(
        containmentInput(
          { worktreeDir: project.worktreeDir, gitPaths: null },
          home,
          userHome(io),
          config,
          skills,
        ),
      ),
    projectId: project.projectId,
    hostUid: io.uid,
    // What the wall refused this directory's last walled session (adr/0064).
    denied: (readWallRecord(project.project.launches, project.worktreeId)?.events.names ?? []).map(
      (n) => ({ name: n.name, count: n.count }),
    ),
  };
}

/** The editor's save: through the config writer, rebasing pending edits onto a file changed on disk. */
function saveEdits(
  target: ConfigTarget,
  current: ReturnType<typeof readConfigForEdit>,
): (state: EditorState) => Promise<EditorEvent> {
  const { file } = target;
  return async (state) => {
    try {
      // A file not written yet starts with the comment saying what it is.
      const seed = current.exists ? '' : target.seed;
      await target.prepare();
      let rebased = false;
      const result = await writeConfig(
        file,
        (disk) => {
          if (disk === state.saved)
            return disk === '' && !current.exists ? seed + state.text : state.text;
          if (state.pending === null) {
            throw new ByreError(`${file.path} changed on disk while you were editing it`, {
              rule: 'config.editor-stale',
              remedy:
                'quit without saving and open it again (your text came from $EDITOR, so it cannot be re-applied)',
            });
          }
          rebased = true;
          return applyEdits(disk, state.pending);
        },
        target.lock === undefined ? {} : { lock: target.lock },
      );
      return { kind: 'saved', text: result.after, rebased };
    } catch (error) {
      return { kind: 'save-failed', message: describeSaveFailure(error) };
    }
  };
}
