// `byre preset inspect|apply [<path>|<https uri>]` (ADR 0029): a preset is a
// complete proposal for this project's store config. inspect shows the box
// the preset would make: every grant it would have, attributed (the status
// model's rows, so the review and status never disagree), the packages it
// needs that are missing, and a diff against the current byre.config. apply
// offers the installs, asks, then writes the whole file through the config
// writer and records the applied marker. Nothing else ever applies a preset.

import { say } from '../output/notes.js';
import path from 'node:path';

import { createTwoFilesPatch } from 'diff';

import { containmentInput, containmentProblems } from '../containment/check.js';
import { boxWritableTrees, grantsOf } from '../containment/writable-trees.js';
import { writeAppliedMarker } from './preset-state.js';
import { cascadeFiles } from '../config/cascade-files.js';
import { MAX_CONFIG_BYTES, parseLayer } from '../config/parse.js';
import { LEGACY_PRESET_FILE, PRESET_FILE } from '../config/preset.js';
import { loadCascade } from '../config/read.js';
import { findHint } from '../config/source-hint.js';
import type { EffectiveConfig, SourceHint, Sourced } from '../config/types.js';
import { projectConfigFile, readConfigForEdit, writeConfig } from '../config/write.js';
import { ByreError, ConfigError, UsageError } from '../errors.js';
import { terminalConfirm, type Io } from '../io.js';
import { escapeTerminal, escapeTerminalBlock } from '../output/escape.js';
import { ensurePrivateDir } from '../host/atomic-write.js';
import {
  checkProjectPath,
  resolveProjectContext,
  type ProjectContext,
} from '../project/context.js';
import { readRegularFile } from '../host/read-regular.js';
import { recordProjectPath } from '../project/store.js';
import { defaultConfigPath, templateConfigPath } from '../project/store-layout.js';
import { loadCatalog } from '../skills/catalog.js';
import { sha256Hex } from '../skills/digest.js';
import { FetchBudget, fetchHttps } from '../skills/packages/fetch.js';
import { resolveEnabledSkills } from '../skills/resolve.js';
import type { ResolvedSkill } from '../skills/types.js';
import { renderRows } from '../status/layout.js';
import { statusModel, type StatusModel } from '../status/model.js';
import { rowsForTier } from '../status/rows.js';
import { layoutWidth } from '../status/width.js';
import type { CommandDeps } from './deps.js';
import { boxHostEnv, packageCanon, templateLookup, userHome } from './load.js';
import { packageInstallCommand } from './package.js';

export interface PresetOptions {
  yes?: boolean;
}

export type PresetDeps = Pick<CommandDeps, 'confirm'> & {
  /** Extra CA for https fetches (tests). */
  ca?: string;
};

interface PresetSource {
  /** An absolute path or the https URL, as recorded in the marker. */
  source: string;
  bytes: Buffer;
  text: string;
}

function refuseLegacy(name: string): never {
  throw new ByreError(
    `${name} is the retired in-repo preset name; byre does not read it as a preset`,
    {
      rule: 'preset.legacy-name',
      remedy: `rename it to ${PRESET_FILE} (git mv ${LEGACY_PRESET_FILE} ${PRESET_FILE}), then review it with byre preset inspect`,
    },
  );
}

/** The preset's bytes: an https URL (bounded fetch), or a local file read no-follow and capped. */
async function readPreset(
  io: Io,
  given: string | undefined,
  deps: PresetDeps,
): Promise<PresetSource> {
  const arg = given ?? PRESET_FILE;
  if (/^https:\/\//i.test(arg)) {
    const budget = new FetchBudget({
      maxBytes: MAX_CONFIG_BYTES,
      ...(deps.ca === undefined ? {} : { ca: deps.ca }),
    });
    const { url, body } = await fetchHttps(new URL(arg), budget);
    if (path.posix.basename(url.pathname) === LEGACY_PRESET_FILE) refuseLegacy(url.href);
    return { source: url.href, bytes: body, text: decode(body, url.href) };
  }
  if (/^[A-Za-z][A-Za-z0-9+.-]+:/.test(arg)) {
    throw new UsageError(`${arg}: a preset is a path or an https:// URL`, {
      rule: 'preset.uri-unsupported',
      remedy: 'give a path (default ./byre.preset) or an https:// URL',
    });
  }
  const file = path.resolve(io.cwd, arg);
  if (path.basename(file) === LEGACY_PRESET_FILE) refuseLegacy(file);
  const read = readRegularFile(file, MAX_CONFIG_BYTES);
  if (read.kind === 'missing') {
    if (
      given === undefined &&
      readRegularFile(path.join(io.cwd, LEGACY_PRESET_FILE), 1).kind !== 'missing'
    ) {
      refuseLegacy(path.join(io.cwd, LEGACY_PRESET_FILE));
    }
    throw new ByreError(`no preset at ${file}`, {
      rule: 'preset.missing',
      remedy: `give the preset's path or https:// URL (the default is ./${PRESET_FILE})`,
    });
  }
  if (read.kind !== 'ok') {
    throw new ByreError(
      read.kind === 'too-large'
        ? `${file} is over 1 MiB; a preset is a config file`
        : `${file} is not a regular file (a link, FIFO or directory); byre reads a preset only in place`,
      { rule: 'preset.unreadable', remedy: 'point at the preset file itself' },
    );
  }
  return { source: file, bytes: read.bytes, text: decode(read.bytes, file) };
}

function decode(bytes: Buffer, source: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ByreError(`${source} is not valid UTF-8`, {
      rule: 'preset.not-utf8',
      remedy: 'a preset is a TOML config file',
    });
  }
}

/** A package the composed box needs and the store lacks, with the [sources] hint to get it. */
interface MissingPackage {
  kind: 'skill' | 'template';
  id: string;
  hint: Sourced<SourceHint> | null;
}

function missingTemplate(ctx: ProjectContext, preset: PresetSource): MissingPackage | null {
  const parsed = parseLayer(preset.text, { file: preset.source, kind: 'project', name: 'project' });
  if (parsed.value === null) throw new ConfigError(parsed.issues);
  const name = parsed.value.template;
  if (name === undefined || name === '' || name === 'none') return null;
  const home = ctx.store.home;
  const local =
    !name.startsWith('byre/') &&
    readRegularFile(templateConfigPath(home, name), 1).kind !== 'missing';
  if (local || templateLookup(home)(name) !== null) return null;
  const sources = Object.fromEntries(
    Object.entries(parsed.value.sources ?? {}).map(([id, s]) => [
      id,
      {
        value: { uri: s.uri ?? '', ...(s.digest === undefined ? {} : { digest: s.digest }) },
        from: { kind: 'project' as const, name: 'project', path: preset.source },
      },
    ]),
  );
  return { kind: 'template', id: name, hint: findHint(sources, [name]) };
}

function missingSkills(config: EffectiveConfig, ctx: ProjectContext): MissingPackage[] {
  const catalog = loadCatalog({ home: ctx.store.home, kind: 'skill' }).asSkillCatalog();
  const refs = [
    ...config.skills.map((s) => s.value),
    ...(config.agent === null ? [] : [config.agent.value]),
  ];
  return [...new Set(refs)]
    .filter((ref) => catalog.lookup(ref) === null)
    .map((id) => ({ kind: 'skill' as const, id, hint: findHint(config.sources, [id]) }));
}

function compose(ctx: ProjectContext, preset: PresetSource): EffectiveConfig {
  const home = ctx.store.home;
  return loadCascade({
    home,
    projectId: ctx.projectId,
    bundledTemplate: templateLookup(home),
    canon: packageCanon(home, loadCatalog({ home, kind: 'skill' })),
    projectText: { text: preset.text, file: preset.source },
  }).config;
}

/** Rows of the status page that are not about this box's grants. */
const NOT_GRANTS = new Set([
  'Project id',
  'Engine',
  'Project',
  'Config files',
  'Preset',
  'Container',
  'Worktrees',
  'Next launch',
  'Worktree of',
  'Image',
]);

async function review(
  io: Io,
  ctx: ProjectContext,
  config: EffectiveConfig,
): Promise<{ model: StatusModel; text: string }> {
  const home = userHome(io);
  let skills: ResolvedSkill[] = [];
  let skillError: string | null = null;
  try {
    skills = resolveEnabledSkills(
      config,
      loadCatalog({ home: ctx.store.home, kind: 'skill' }).asSkillCatalog(),
    );
  } catch (error) {
    if (!(error instanceof ByreError)) throw error;
    skillError = error.message;
  }
  const hostEnv = boxHostEnv(io, boxWritableTrees(ctx, grantsOf(config, skills), home), config);
  const model = statusModel({
    project: ctx,
    config,
    skills,
    skillError,
    engine: { kind: 'error', message: 'not asked' },
    hostEnv,
    hostUid: io.uid,
    home,
    container: { state: 'not_running' },
    launch: null,
    siblings: [],
    siblingsError: null,
    nextLaunch: null,
    refusals: await containmentProblems(
      containmentInput(ctx, ctx.store.home, home, config, skills),
    ),
    configFiles: cascadeFiles(config, {
      default: defaultConfigPath(ctx.store.home),
      project: ctx.project.config,
    }),
  });
  const rows = rowsForTier(model.rows, 'full');
  const kept = [];
  let keep = true;
  for (const row of rows) {
    if (row.label !== '') keep = !NOT_GRANTS.has(row.label);
    if (keep) kept.push(row);
  }
  const width = layoutWidth({ isTty: io.stdoutIsTty, columns: io.stdoutColumns });
  return { model, text: renderRows(kept, { width, tier: 'full' }) };
}

/** A unified diff of the store config against the preset, or a line saying they are the same. */
export function configDiff(
  current: string | null,
  proposed: string,
  storePath: string,
  source: string,
): string {
  if (current === proposed) return `(no change: ${storePath} already holds this preset)\n`;
  const patch = createTwoFilesPatch(
    current === null ? '/dev/null' : storePath,
    storePath,
    current ?? '',
    proposed,
    current === null ? '(not created yet)' : '(now)',
    `(from ${source})`,
  ).split('\n');
  // The patch's own `Index:`/`====` preamble says nothing the --- and +++ lines do not.
  return patch
    .slice(
      Math.max(
        0,
        patch.findIndex((l) => l.startsWith('--- ')),
      ),
    )
    .join('\n');
}

async function prepare(io: Io, given: string | undefined, deps: PresetDeps) {
  const preset = await readPreset(io, given, deps);
  const ctx = await resolveProjectContext(io.cwd, io.env);
  await checkProjectPath(ctx);
  return { preset, ctx };
}

function printMissing(io: Io, missing: readonly MissingPackage[]): void {
  for (const m of missing) {
    const how =
      m.hint === null
        ? 'no [sources] hint says where to get it'
        : `from ${m.hint.value.uri}${m.hint.value.digest === undefined ? '' : ` (${m.hint.value.digest})`}`;
    say(io.stderr, `the preset needs ${m.kind} ${m.id}, which is not installed: ${how}`);
  }
}

function printReview(io: Io, preset: PresetSource, ctx: ProjectContext, text: string): void {
  const current = readConfigForEdit(projectConfigFile(ctx.project));
  io.stdout.write(
    `The box ${escapeTerminal(preset.source)} would make (every grant, attributed):\n\n`,
  );
  io.stdout.write(text);
  io.stdout.write(
    `\nWhat it changes in ${escapeTerminal(ctx.project.config)} (applying replaces the whole file):\n\n`,
  );
  io.stdout.write(
    escapeTerminalBlock(
      configDiff(
        current.exists ? current.text : null,
        preset.text,
        ctx.project.config,
        preset.source,
      ),
    ),
  );
}

export async function presetInspectCommand(
  io: Io,
  given: string | undefined,
  deps: PresetDeps = {},
): Promise<void> {
  const { preset, ctx } = await prepare(io, given, deps);
  const template = missingTemplate(ctx, preset);
  if (template !== null) {
    printMissing(io, [template]);
    throw new ByreError(
      `the preset's template ${template.id} is not installed, so its box cannot be composed`,
      {
        rule: 'preset.template-missing',
        remedy:
          template.hint === null
            ? `install the template, then inspect again`
            : `byre preset apply installs it (after asking), or: byre template install ${template.hint.value.uri}`,
      },
    );
  }
  const config = compose(ctx, preset);
  printMissing(io, missingSkills(config, ctx));
  const { text } = await review(io, ctx, config);
  printReview(io, preset, ctx, text);
}

async function offerInstalls(
  io: Io,
  missing: readonly MissingPackage[],
  options: PresetOptions,
  deps: PresetDeps,
): Promise<void> {
  if (missing.length === 0) return;
  printMissing(io, missing);
  const unhinted = missing.filter((m) => m.hint === null);
  if (unhinted.length > 0) {
    throw new ByreError(
      `the preset needs ${unhinted.map((m) => `${m.kind} ${m.id}`).join(', ')}, and no [sources] hint says where to get ${unhinted.length === 1 ? 'it' : 'them'}`,
      {
        rule: 'preset.package-missing',
        remedy: 'install the package (byre skill install <manifest URL>), then apply again',
      },
    );
  }
  const confirm = deps.confirm ?? terminalConfirm(io, '--yes');
  for (const m of missing) {
    const hint = m.hint as Sourced<SourceHint>;
    if (
      options.yes !== true &&
      !(await confirm(`Install ${m.kind} ${m.id} from ${hint.value.uri}?`))
    ) {
      throw new ByreError(`${m.kind} ${m.id} was not installed; nothing was applied`, {
        rule: 'preset.install-declined',
        remedy: 'install it yourself, then apply again',
      });
    }
    // The install's own stdout (the digest) would land inside the review.
    await packageInstallCommand(
      { ...io, stdout: io.stderr },
      m.kind,
      hint.value.uri,
      {
        ...(hint.value.digest === undefined ? {} : { digest: hint.value.digest }),
        ...(options.yes === true ? { yes: true } : {}),
      },
      deps.confirm === undefined ? {} : { confirm: deps.confirm },
    );
  }
}

export async function presetApplyCommand(
  io: Io,
  given: string | undefined,
  options: PresetOptions,
  deps: PresetDeps = {},
): Promise<void> {
  const { preset, ctx } = await prepare(io, given, deps);
  const template = missingTemplate(ctx, preset);
  await offerInstalls(io, template === null ? [] : [template], options, deps);
  let config = compose(ctx, preset);
  const skills = missingSkills(config, ctx);
  if (skills.length > 0) {
    await offerInstalls(io, skills, options, deps);
    config = compose(ctx, preset);
  }
  const { text } = await review(io, ctx, config);
  printReview(io, preset, ctx, text);
  if (options.yes !== true) {
    const confirm = deps.confirm ?? terminalConfirm(io, '--yes');
    if (!(await confirm(`Write this preset to ${ctx.project.config}?`))) {
      throw new ByreError('nothing was applied', {
        rule: 'preset.declined',
        remedy: 'apply again when you are ready, or pass --yes',
      });
    }
  }
  await recordProjectPath(ctx.store.home, ctx.projectId, ctx.projectRoot);
  await ensurePrivateDir(ctx.project.dir);
  await writeConfig(projectConfigFile(ctx.project), () => preset.text, { lock: ctx.project });
  await writeAppliedMarker(ctx.project, { sha256: sha256Hex(preset.bytes), source: preset.source });
  say(
    io.stderr,
    `applied ${preset.source} to ${ctx.project.config}; the next byre develop launches it`,
  );
}
