// `byre doctor`: check this machine (and this directory's config) for what
// byre needs, say what was found and what byre makes of it, one line each
// with a fix, and exit 1 when byre is not usable here. `--prune` lists the
// byre objects and store folders whose project is gone and removes them after
// confirmation.
// Reads only, except what --prune removes.
// Over 500 lines: one fact gatherer per doctor line, and --prune reads the same store facts.

import path from 'node:path';

import { diskSpace } from '../host/disk-space.js';
import { hostLimits } from '../host/limits.js';
import { entryNames, lstatEntry, pathExists } from '../host/path-view.js';
import { readRegularFile } from '../host/read-regular.js';
import { removeTree } from '../host/remove.js';
import { terminalConfirm, type Io } from '../io.js';
import {
  pruneLeftovers,
  scanLabelledObjects,
  type PruneOutcome,
} from '../doctor/labelled-objects.js';
import { enginePool, engineSaid, type EnginePool } from '../engine/pool.js';
import { readRecordedEngine } from '../session/engine-record.js';
import type {
  BaseFact,
  DiskFact,
  EngineFact,
  ProjectState,
  StoreEntry,
  StoreFacts,
  ToolFact,
} from '../doctor/facts.js';
import {
  baseFinding,
  edgeBaseFinding,
  clipboardFinding,
  configFinding,
  diskFinding,
  engineChoiceFinding,
  engineFinding,
  hostUserFinding,
  isUsable,
  launchRecordFinding,
  leftoverFinding,
  limitFinding,
  selectedEngine,
  storeFinding,
  toolFinding,
  type EngineChoice,
  type Finding,
} from '../doctor/findings.js';
import {
  classifyLeftovers,
  describeLeftover,
  describeStoreFolder,
  staleLaunchRecords,
  type LeftoverReport,
  type StoreFolder,
} from '../doctor/leftovers.js';
import { leftoverLines, renderDoctorData, renderDoctorText } from '../doctor/report.js';
import { detectEngine } from '../engine/detect.js';
import type { CommandDeps } from './deps.js';
import { resolveHostTool } from '../engine/host-tools.js';
import { createEngine } from '../engine/runner.js';
import type { EngineName } from '../engine/types.js';
import { ByreError, EngineError, UsageError } from '../errors.js';
import { say } from '../output/notes.js';
import { isValidProjectId } from '../project/identity.js';
import { resolveProjectContext, type ProjectContext } from '../project/context.js';
import { retargetWorktreeRecords } from '../project/identity-record.js';
import { PATH_RECORD_MAX_BYTES } from '../project/store.js';
import { besideFolder, projectStorePaths, storeTag } from '../project/store-layout.js';
import { loadBoxConfig, projectDeclinedRoots, userHome } from './load.js';
import { EDGE_IMAGE_FROM } from '../gen/edge-image.js';

export interface DoctorOptions {
  prune?: boolean;
  yes?: boolean;
  data?: boolean;
}

/** Doctor's outside world; detection defaults to a fresh health probe, never the store's cache (adr/0053). */
export type DoctorDeps = Pick<CommandDeps, 'confirm' | 'pool' | 'detect' | 'createEngine'>;

/** How doctor reaches the engines it reports on. */
type Reach = Required<Pick<CommandDeps, 'detect' | 'createEngine'>>;

const ENGINES: EngineName[] = ['docker', 'podman'];
/** How long the registry may take to say whether it has the base image. */
const REGISTRY_TIMEOUT_MS = 20_000;

type Env = Readonly<Record<string, string | undefined>>;

async function engineFact(
  name: EngineName,
  declinedRoots: readonly string[],
  env: Env,
  reach: Reach,
): Promise<EngineFact> {
  const r = resolveHostTool(name, { declinedRoots, env });
  if (r.kind === 'absent') return { name, state: 'absent' };
  if (r.kind === 'declined') return { name, state: 'declined', path: r.path, root: r.root };
  try {
    // Asked for real, every run: a remembered answer is never evidence of health (adr/0053).
    const f = await reach.detect(name, declinedRoots, env, { health: true });
    return {
      name,
      state: 'ok',
      path: f.path,
      version: f.version,
      rootless: f.rootless,
      keepId: f.keepId,
      warnings: f.warnings.map((w) => w.message),
    };
  } catch (error) {
    if (!(error instanceof ByreError)) throw error;
    return {
      name,
      state: 'unusable',
      path: r.path,
      rule: error.rule,
      message: error.message,
      said: error instanceof EngineError ? engineSaid(error.stderr) : '',
      fix: error.remedy ?? null,
    };
  }
}

function toolFact(tool: string, declinedRoots: readonly string[], env: Env): ToolFact {
  const r = resolveHostTool(tool, { declinedRoots, env });
  if (r.kind === 'found') return { tool, state: 'found', path: r.path };
  if (r.kind === 'declined') return { tool, state: 'declined', path: r.path, root: r.root };
  return { tool, state: 'absent' };
}

/** The clipboard helpers deliver would look for on this platform and display. */
function clipboardTools(env: Env): string[] {
  if (process.platform === 'darwin') return ['pbcopy', 'pbpaste'];
  const tools: string[] = [];
  if ((env['WAYLAND_DISPLAY'] ?? '') !== '') tools.push('wl-copy', 'wl-paste');
  if ((env['DISPLAY'] ?? '') !== '') tools.push('xclip');
  return tools;
}

/** Free space where `engine` keeps images, when that is on this host. */
async function diskFact(
  name: EngineName,
  declinedRoots: readonly string[],
  env: Env,
  reach: Reach,
): Promise<DiskFact> {
  const r = resolveHostTool(name, { declinedRoots, env });
  if (r.kind !== 'found')
    return { engine: name, state: 'unmeasured', root: null, why: 'not installed' };
  try {
    const engine = reach.createEngine(
      { name, path: r.path, rootless: false, keepId: false, version: '', warnings: [] },
      { env, queryTimeoutMs: 30_000 },
    );
    const info = await engine.storageInfo();
    if (info.remote) {
      return {
        engine: name,
        state: 'unmeasured',
        root: info.root,
        why: 'inside a VM or on a remote host; not measured from here',
      };
    }
    return { engine: name, state: 'measured', root: info.root, ...diskSpace(info.root) };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { engine: name, state: 'unmeasured', root: null, why };
  }
}

async function baseFact(
  base: string | null,
  choice: EngineChoice | null,
  engines: readonly EngineFact[],
  recorded: EngineName | null,
  env: Env,
  reach: Reach,
): Promise<BaseFact> {
  if (base === null || choice === null)
    return { state: 'unknown', ref: base, why: 'the config did not load' };
  const picked = selectedEngine(choice, engines, recorded);
  const fact = engines.find((e) => e.name === picked.name);
  if (picked.name === null || fact?.state !== 'ok') {
    return { state: 'unknown', ref: base, why: 'no usable engine to ask' };
  }
  const engine = reach.createEngine(
    {
      name: fact.name,
      path: fact.path,
      rootless: fact.rootless,
      keepId: fact.keepId,
      version: fact.version,
      warnings: [],
    },
    { env, queryTimeoutMs: 30_000 },
  );
  try {
    if ((await engine.imageInfo(base)) !== null)
      return { state: 'local', ref: base, engine: fact.name };
    const r = await engine.registryHas(base, REGISTRY_TIMEOUT_MS);
    return r.has
      ? { state: 'pullable', ref: base, engine: fact.name }
      : { state: 'unpullable', ref: base, engine: fact.name, why: r.why };
  } catch (error) {
    return {
      state: 'unknown',
      ref: base,
      why: error instanceof Error ? error.message : String(error),
    };
  }
}

function entryOf(p: string): StoreEntry | null {
  try {
    const st = lstatEntry(p);
    const kind = st.isSymbolicLink()
      ? 'symlink'
      : st.isDirectory()
        ? 'dir'
        : st.isFile()
          ? 'file'
          : 'other';
    return { path: p, kind, mode: st.mode & 0o7777, uid: st.uid };
  } catch {
    return null;
  }
}

function listDir(dir: string): string[] {
  return entryNames(dir).sort();
}

/**
 * The store's top level, each project directory and what it holds directly:
 * everything a box's grants are read from. Symlinks are reported, not followed.
 */
function storeFacts(home: string, uid: number): StoreFacts {
  const top = entryOf(home);
  if (top === null) return { home, entries: null, uid };
  const entries: StoreEntry[] = [top];
  if (top.kind !== 'dir') return { home, entries, uid };
  const add = (p: string): StoreEntry | null => {
    const e = entryOf(p);
    if (e !== null) entries.push(e);
    return e;
  };
  for (const name of listDir(home)) add(path.join(home, name));
  const projects = path.join(home, 'projects');
  if (entryOf(projects)?.kind === 'dir') {
    for (const id of listDir(projects)) {
      const dir = add(path.join(projects, id));
      if (dir?.kind !== 'dir') continue;
      for (const name of listDir(dir.path)) add(path.join(dir.path, name));
    }
  }
  return { home, entries, uid };
}

/** Where project `id` stands in the store at `home`, read fresh each time. */
export function projectState(home: string, id: string): ProjectState {
  if (!isValidProjectId(id)) return { state: 'store_gone' };
  const paths = projectStorePaths(home, id);
  if (entryOf(paths.dir)?.kind !== 'dir') return { state: 'store_gone' };
  let recorded: string;
  try {
    // Never through a link, never waiting on a FIFO: a box may write the store under --self-edit.
    const read = readRegularFile(paths.path, PATH_RECORD_MAX_BYTES);
    if (read.kind !== 'ok') return { state: 'present' };
    recorded = read.bytes.toString('utf8').replace(/\n$/, '');
  } catch {
    // No record (or an unreadable one) proves nothing gone.
    return { state: 'present' };
  }
  if (recorded === '' || pathExists(recorded)) return { state: 'present' };
  return { state: 'path_gone', path: recorded };
}

/** Every project folder in the store, by id (a name that is not a project id is not byre's). */
function storeFolders(home: string): { project: string; dir: string }[] {
  return listDir(path.join(home, 'projects'))
    .filter(isValidProjectId)
    .map((id) => ({ project: id, dir: projectStorePaths(home, id).dir }));
}

/** Launch record hashes on disk per project in the store. */
function launchRecordsOnDisk(home: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const id of listDir(path.join(home, 'projects'))) {
    if (!isValidProjectId(id)) continue;
    const hashes = listDir(projectStorePaths(home, id).launches).flatMap((name) => {
      const m = /^([0-9a-f]{64})\.toml$/.exec(name);
      return m?.[1] === undefined ? [] : [m[1]];
    });
    if (hashes.length > 0) out[id] = hashes;
  }
  return out;
}

interface Loaded {
  choice: EngineChoice | null;
  base: string | null;
  /** The config injects credentials at the edge: its image's base is checked too (adr/0077). */
  injects: boolean;
  error: { message: string; fix: string | null } | null;
}

async function loadConfig(ctx: ProjectContext, home: string): Promise<Loaded> {
  try {
    const { config } = await loadBoxConfig(ctx, home);
    return {
      choice: config.engine.value,
      base: config.base.value,
      injects: config.injections.length > 0,
      error: null,
    };
  } catch (error) {
    if (!(error instanceof ByreError)) throw error;
    const where =
      error.location === undefined
        ? ''
        : ` (${error.location.file}${error.location.line === undefined ? '' : `:${error.location.line}`})`;
    return {
      choice: null,
      base: null,
      injects: false,
      error: { message: `${error.message}${where}`, fix: error.remedy ?? null },
    };
  }
}

interface Diagnosis {
  findings: Finding[];
  leftovers: LeftoverReport;
}

async function diagnose(
  io: Io,
  ctx: ProjectContext,
  declined: readonly string[],
  pool: EnginePool,
  reach: Reach,
): Promise<Diagnosis> {
  const home = ctx.store.home;
  const [loaded, engines, limits, disks, scans] = await Promise.all([
    loadConfig(ctx, userHome(io)),
    Promise.all(ENGINES.map((n) => engineFact(n, declined, io.env, reach))),
    hostLimits(),
    Promise.all(ENGINES.map((n) => diskFact(n, declined, io.env, reach))),
    scanLabelledObjects(pool),
  ]);
  const recorded = readRecordedEngine(ctx.project, ctx.worktreeId);
  const ask = (ref: string | null) =>
    baseFact(ref, loaded.choice, engines, recorded, io.env, reach);
  const [base, edgeBase] = await Promise.all([
    ask(loaded.base),
    loaded.injects ? ask(EDGE_IMAGE_FROM) : null,
  ]);
  const leftovers = classifyLeftovers(
    scans,
    storeTag(home),
    (id) => projectState(home, id),
    storeFolders(home),
  );
  const stale = staleLaunchRecords(scans, launchRecordsOnDisk(home));
  const clipboard = clipboardTools(io.env);
  const findings: Finding[] = [
    hostUserFinding(io.uid, io.gid, io.env),
    configFinding(loaded.error),
    ...engines.map(engineFinding),
    engineChoiceFinding(loaded.choice, engines, recorded),
    ...disks
      .filter((d) => engines.some((e) => e.name === d.engine && e.state === 'ok'))
      .map(diskFinding),
    baseFinding(base),
    ...(edgeBase === null ? [] : [edgeBaseFinding(edgeBase)]),
    toolFinding(toolFact('git', declined, io.env)),
    toolFinding(toolFact('ssh', declined, io.env)),
    clipboardFinding(clipboard.map((t) => toolFact(t, declined, io.env))),
    limitFinding(limits, process.platform),
    storeFinding(storeFacts(home, io.uid)),
    launchRecordFinding(
      stale,
      leftovers.unreached.map((u) => u.engine),
    ),
    leftoverFinding(leftovers),
  ];
  return { findings, leftovers };
}

interface FolderOutcome {
  removed: StoreFolder[];
  kept: { folder: StoreFolder; why: string }[];
  failed: { folder: StoreFolder; message: string }[];
}

/**
 * Removes the leftover store folders once the engine objects are dealt with.
 * A folder stays while its project may still have a box or object byre could
 * not remove or could not see (its launch records verify a running box), and
 * when its directory is back since the listing. Its worktrees' records and
 * its bound wiring go with it, as with `byre forget`.
 */
async function pruneStoreFolders(
  home: string,
  report: LeftoverReport,
  objects: PruneOutcome,
): Promise<FolderOutcome> {
  const out: FolderOutcome = { removed: [], kept: [], failed: [] };
  const held = new Set([
    ...report.leftovers.filter((l) => l.running).map((l) => l.project),
    ...objects.skipped.map((s) => s.leftover.project),
    ...objects.failed.map((f) => f.leftover.project),
  ]);
  const unreached = report.unreached.map((u) => u.engine);
  for (const folder of report.folders) {
    if (unreached.length > 0) {
      out.kept.push({ folder, why: `${unreached.join(', ')} could not be asked` });
    } else if (held.has(folder.project)) {
      out.kept.push({ folder, why: 'an object of its project is still there (listed above)' });
    } else if (projectState(home, folder.project).state !== 'path_gone') {
      out.kept.push({ folder, why: `project ${folder.project} is back` });
    } else {
      try {
        await removeTree(folder.dir);
        // What it keeps beside the folder: the wiring its boxes bound on
        // rootless podman (adr/0075), its edge certificates (adr/0070), its
        // delivery receipts.
        for (const dir of besideFolder(projectStorePaths(home, folder.project))) {
          await removeTree(dir);
        }
        await retargetWorktreeRecords(home, folder.project, null);
        out.removed.push(folder);
      } catch (error) {
        out.failed.push({
          folder,
          message: error instanceof Error ? error.message : String(error),
        });
      }
    }
  }
  return out;
}

async function prune(
  io: Io,
  ctx: ProjectContext,
  pool: EnginePool,
  options: DoctorOptions,
  deps: DoctorDeps,
): Promise<void> {
  const home = ctx.store.home;
  const scans = await scanLabelledObjects(pool);
  const report = classifyLeftovers(
    scans,
    storeTag(home),
    (id) => projectState(home, id),
    storeFolders(home),
  );
  for (const u of report.unreached) {
    say(io.stderr, `could not ask ${u.engine}: ${u.message}`);
  }
  if (report.otherStore + report.unattributed > 0) {
    say(
      io.stderr,
      `left alone: ${report.otherStore} byre object(s) of another store, ${report.unattributed} without a store label`,
    );
  }
  const removable = report.leftovers.filter((l) => !l.running);
  if (report.leftovers.length + report.folders.length === 0) {
    say(io.stderr, 'no leftovers to prune');
  } else {
    say(
      io.stderr,
      'leftovers (byre objects and store folders whose project store or directory is gone):',
    );
    for (const l of leftoverLines(report)) io.stderr.write(`${l}\n`);
  }
  if (removable.length + report.folders.length > 0) {
    const confirm = deps.confirm ?? terminalConfirm(io, '--yes');
    const what = [
      ...(removable.length === 0 ? [] : [`${removable.length} object(s)`]),
      ...(report.folders.length === 0 ? [] : [`${report.folders.length} store folder(s)`]),
    ].join(' and ');
    if (options.yes !== true && !(await confirm(`Remove these ${what}?`))) {
      throw new ByreError('prune cancelled; nothing was removed', {
        rule: 'doctor.prune-cancelled',
      });
    }
    const out = await pruneLeftovers(
      removable,
      pool,
      (l) => projectState(home, l.project).state !== 'present',
    );
    for (const l of out.removed) say(io.stderr, `removed ${describeLeftover(l)}`);
    for (const s of out.skipped) say(io.stderr, `kept ${describeLeftover(s.leftover)}: ${s.why}`);
    const folders = await pruneStoreFolders(home, report, out);
    for (const f of folders.removed) say(io.stderr, `removed ${describeStoreFolder(f)}`);
    for (const k of folders.kept) say(io.stderr, `kept ${describeStoreFolder(k.folder)}: ${k.why}`);
    const failed = [
      ...out.failed.map((f) => `${describeLeftover(f.leftover)} (${f.message})`),
      ...folders.failed.map((f) => `${describeStoreFolder(f.folder)} (${f.message})`),
    ];
    if (failed.length > 0) {
      throw new ByreError(`could not remove ${failed.join('; ')}`, {
        rule: 'doctor.prune-incomplete',
        remedy: 'fix the cause named above, then run byre doctor --prune again',
      });
    }
  }
  if (report.unreached.length > 0) {
    throw new ByreError(
      `could not ask ${report.unreached.map((u) => u.engine).join(', ')}; leftovers there were not pruned`,
      {
        rule: 'doctor.prune-incomplete',
        remedy: 'start that engine, then run byre doctor --prune again',
      },
    );
  }
}

export async function doctorCommand(
  io: Io,
  options: DoctorOptions,
  deps: DoctorDeps = {},
): Promise<void> {
  if (options.prune === true && options.data === true) {
    throw new UsageError('--prune and --data cannot be combined', {
      rule: 'doctor.flags-exclusive',
      remedy:
        'run byre doctor --data to read the leftovers, then byre doctor --prune to remove them',
    });
  }
  if (options.yes === true && options.prune !== true) {
    throw new UsageError('--yes only confirms --prune', {
      rule: 'doctor.yes-without-prune',
      remedy: 'byre doctor --prune --yes',
    });
  }
  const ctx = await resolveProjectContext(io.cwd, io.env);
  const declined = projectDeclinedRoots(io, ctx);
  const pool = deps.pool ?? enginePool(declined, io.env, null);
  if (options.prune === true) {
    await prune(io, ctx, pool, options, deps);
    return;
  }
  const reach: Reach = {
    detect: deps.detect ?? detectEngine,
    createEngine: deps.createEngine ?? createEngine,
  };
  const { findings, leftovers } = await diagnose(io, ctx, declined, pool, reach);
  const report = { workdir: ctx.worktreeDir, projectId: ctx.projectId, findings, leftovers };
  io.stdout.write(options.data === true ? renderDoctorData(report) : renderDoctorText(report));
  if (!isUsable(findings)) {
    const failed = findings.filter((f) => f.verdict === 'fail').map((f) => f.subject);
    throw new ByreError(`byre is not usable here: ${failed.join(', ')} failed`, {
      rule: 'doctor.unusable',
      remedy: 'follow the fix under each FAIL line above',
    });
  }
}
