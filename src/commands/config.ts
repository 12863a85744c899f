// `byre config [--global | --layer <name>]`: the keyboard-driven editor over
// one file of the cascade. Everything the screen needs is read here first; a
// file that does not load (this one, or one beneath it) is refused before the
// screen opens, located. Saves go through the config writer under the setup
// lock; nothing else is written.

import { mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

import { readLayersBelow, type LayerFile } from '../config/read.js';
import {
  defaultConfigFile,
  layerConfigFile,
  projectConfigFile,
  readConfigForEdit,
  writeConfig,
  type ConfigFile,
} from '../config/write.js';
import { editInHostEditor } from '../engine/host-editor.js';
import { ByreError, ConfigError, UsageError } from '../errors.js';
import { hostReaders } from '../hostenv/readers.js';
import type { HostReaders } from '../hostenv/resolve.js';
import type { Io } from '../io.js';
import { createHostTools } from '../engine/host-tools.js';
import { ensurePrivateDir } from '../project/atomic-write.js';
import { resolveProjectContext, type ProjectContext } from '../project/context.js';
import { recordProjectPath } from '../project/store.js';
import { byreHome, storePaths } from '../project/store-layout.js';
import { loadCatalog } from '../skills/catalog.js';
import { applyEdits } from '../tomldoc/index.js';
import { onboardingConfig } from '../box/onboard.js';
import { issueLine, belowKey, parseBuffer } from '../tui/model/config-editor/derive.js';
import type { EditorEvent, EditorState } from '../tui/model/config-editor/state.js';
import type {
  Below,
  CatalogChoice,
  EditorFile,
  EditorWorld,
} from '../tui/model/config-editor/types.js';
import { packageCanon, templateLookup, userHome } from './load.js';

export interface ConfigOptions {
  global?: boolean;
  layer?: string;
}

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

function layerNames(home: string): string[] {
  const dir = storePaths(home).layers;
  try {
    return readdirSync(dir)
      .filter((name) => !name.startsWith('.'))
      .sort();
  } catch {
    return [];
  }
}

function hostExists(p: string): boolean {
  try {
    statSync(p);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | null)?.code;
    return code !== 'ENOENT' && code !== 'ENOTDIR';
  }
}

interface Catalogs {
  world: Pick<
    EditorWorld,
    'skills' | 'canon' | 'templates' | 'agents' | 'skillChoices' | 'companions'
  >;
}

function catalogs(home: string): Catalogs {
  const skills = loadCatalog({ home, kind: 'skill' });
  const templates = loadCatalog({ home, kind: 'template' });
  const ok = skills.entries.filter((e) => e.status === 'ok' && e.skill !== null);
  const choice = (e: { id: string; description: string }): CatalogChoice => ({
    id: e.id,
    description: e.description,
  });
  const companions: Record<string, string> = {};
  for (const e of ok) {
    const agent = e.skill?.meta?.sharedAuthFor;
    if (agent != null) companions[agent] = e.id;
  }
  return {
    world: {
      skills: skills.asSkillCatalog(),
      canon: packageCanon(home, skills),
      templates: templates.entries.filter((e) => e.status === 'ok').map(choice),
      agents: ok.filter((e) => e.skill?.agent != null).map(choice),
      skillChoices: ok.map(choice),
      companions,
    },
  };
}

async function projectOrNull(io: Io): Promise<ProjectContext | null> {
  try {
    return await resolveProjectContext(io.cwd, io.env);
  } catch {
    return null;
  }
}

function targetFile(opts: ConfigOptions, home: string, project: ProjectContext | null): ConfigFile {
  if (opts.global === true) return defaultConfigFile(home);
  if (opts.layer !== undefined) return layerConfigFile(home, opts.layer);
  if (project === null) {
    throw new ByreError('cannot tell which project this directory belongs to', {
      rule: 'config.no-project',
      remedy: 'run byre config in the project directory, or use --global / --layer <name>',
    });
  }
  return projectConfigFile(project.project);
}

function describeSaveFailure(error: unknown): string {
  if (error instanceof ConfigError) return error.issues.map(issueLine).join('\n');
  if (error instanceof ByreError) {
    return error.remedy === undefined ? error.message : `${error.message} — ${error.remedy}`;
  }
  throw error;
}

export async function configCommand(io: Io, opts: ConfigOptions): Promise<void> {
  if (opts.global === true && opts.layer !== undefined) {
    throw new UsageError('--global and --layer name different files; give one');
  }
  const home = byreHome(io.env);
  const project = await projectOrNull(io);
  const file = targetFile(opts, home, project);
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
  const { world: known } = catalogs(home);
  const readBelow = (text: string): { below: Below; issues: ConfigError['issues'] } => {
    const raw = parseBuffer(text, editorFile).raw;
    const layer: LayerFile = {
      ref: { kind: file.kind, name: file.name, path: file.path },
      text,
      value: raw === null ? null : raw,
      issues: [],
      warnings: [],
    };
    const read = readLayersBelow(
      { home, bundledTemplate: templateLookup(home), canon: known.canon },
      layer,
    );
    return {
      below: { key: belowKey(raw, editorFile), layers: read.layers, template: read.template },
      issues: read.issues,
    };
  };
  const opened = readBelow(current.text);
  if (opened.issues.length > 0) throw new ConfigError(opened.issues);

  const roots = project?.boxWritableRoots ?? [home];
  const world: EditorWorld = {
    ...known,
    file: editorFile,
    layers: layerNames(home),
    readers: memoReaders(
      hostReaders(
        io.env,
        (() => {
          const git = createHostTools({ declinedRoots: roots, env: io.env }).resolve('git');
          return git.kind === 'found' ? git.path : null;
        })(),
      ),
    ),
    hostExists: (p) => hostExists(p),
    userHome: userHome(io),
    projectId: project?.projectId ?? '',
    hostUid: io.uid,
  };

  const save = async (state: EditorState): Promise<EditorEvent> => {
    try {
      if (file.kind === 'project' && project !== null) {
        await recordProjectPath(home, project.projectId, project.projectRoot);
      } else if (file.kind === 'layer') {
        mkdirSync(path.dirname(file.path), { recursive: true, mode: 0o700 });
      } else {
        await ensurePrivateDir(home);
      }
      const header =
        !current.exists && file.kind === 'project' && project !== null
          ? onboardingConfig(project.projectRoot, {})
          : '';
      const result = await writeConfig(
        file,
        (disk) => {
          if (disk === state.saved)
            return state.saved === '' && disk === '' ? header + state.text : state.text;
          if (state.pending === null) {
            throw new ByreError(`${file.path} changed on disk while you were editing it`, {
              rule: 'config.editor-stale',
              remedy:
                'quit without saving and open it again (your text was replaced in $EDITOR, so it cannot be re-applied)',
            });
          }
          return applyEdits(disk, state.pending);
        },
        project === null ? {} : { lock: project.project },
      );
      return { kind: 'saved', text: result.after };
    } catch (error) {
      return { kind: 'save-failed', message: describeSaveFailure(error) };
    }
  };

  const { runConfigEditor } = await import('../tui/config-editor.js');
  const dumb = io.env['TERM'] === 'dumb';
  const final = await runConfigEditor({
    world,
    text: current.text,
    below: opened.below,
    color: !dumb && (io.env['NO_COLOR'] ?? '') === '',
    altScreen: !dumb,
    input: process.stdin,
    output: process.stdout,
    effects: {
      save,
      reloadBelow: async (state) => {
        const read = readBelow(state.text);
        return { kind: 'below-loaded', below: read.below, issues: read.issues };
      },
    },
    external: (text, suffix) =>
      editInHostEditor(
        text,
        suffix === '.md' ? 'instructions.md' : `${path.basename(file.path)}.toml`,
        {
          declinedRoots: roots,
          env: io.env,
          cwd: io.cwd,
        },
      ),
  });
  const wrote = final.saved !== current.text;
  io.stderr.write(wrote ? `byre: saved ${file.path}\n` : `byre: ${file.path} unchanged\n`);
  if (final.text !== final.saved) io.stderr.write('byre: unsaved changes were discarded\n');
}
