// `byre deliver`: files, a tree, stdin or a paste into a running box's /inbox
// -- here or through ssh:// on another machine running byre -- plus the
// machine verbs a remote byre answers (`--boxes`, `--tar -`) and
// `--install-app`. Stdout is the landed paths, one per line; the rest is stderr.

import { homedir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';

import type { Io } from '../io.js';
import { createHostTools, requireResolved } from '../engine/host-tools.js';
import { ByreError, PartialPoolError } from '../errors.js';
import { escapeTerminal } from '../output/escape.js';
import type { InstallDeliverAppOptions } from '../transfer/app/install.js';
import { formatBoxLines } from '../transfer/boxes-grammar.js';
import type { ToolLookup } from '../transfer/clipboard/plan.js';
import type { CopyOptions } from '../transfer/clipboard/copy.js';
import type { ReadOptions } from '../transfer/clipboard/read.js';
import {
  DeliveryFailure,
  deliverOneFile,
  deliverStaged,
  type DeliverResult,
} from '../transfer/deliver-to-box.js';
import {
  planDelivery,
  type DeliverInput,
  type DeliverOptions,
  type DeliverPlan,
} from '../transfer/deliver-args.js';
import { localTransferEngines } from '../transfer/podman-memo.js';
import { storeWritableTrees, treeRoots } from '../containment/writable-trees.js';
import { byreHome } from '../project/store-layout.js';
import { discoverBoxes, type FoundBox } from '../transfer/discover.js';
import { isUnusableName, sanitizeName, stdinName } from '../transfer/names.js';
import type { BeatTerminal } from '../transfer/paste/beat.js';
import type { PasteCapture } from '../transfer/paste/classify.js';
import type { ClipboardSnapshot } from '../transfer/clipboard/plan.js';
import type { SshTarget } from '../transfer/remote/protocol.js';
import type { RemoteContext } from '../transfer/remote/session.js';
import { pickTarget, selectBox } from '../transfer/select.js';
import { say, sayAll } from '../output/notes.js';
// What only some deliveries use (trees and tars, ssh, the paste beat, the
// app installer) is imported on first use: a single-file delivery, the
// common case, starts without loading it.
const stageWriter = () => import('../transfer/stage-writer.js');
import { describeBox } from '../transfer/target.js';
import { withDefaults, type CommandDeps } from './deps.js';
import { pathExists, reachesRegularFile } from '../host/path-view.js';
import {
  lazyPrivateTempDir,
  streamToNewFile,
  writeNewFileSync,
  type LazyPrivateTempDir,
} from '../host/private-temp.js';
import { describeNotRegular, withNamedRegularFile } from '../host/read-regular.js';
import { isCharacterDevice } from '../host/tty.js';

export type { DeliverOptions } from '../transfer/deliver-args.js';

/** The paste beat's terminal legs, swappable in tests. */
export interface PasteUi {
  wait(target: string): Promise<PasteCapture | null>;
  confirm(paths: readonly string[]): Promise<boolean>;
}

export interface DeliverDeps extends CommandDeps {
  platform?: NodeJS.Platform;
  lookup?: ToolLookup;
  home?: string;
  /** The byre a deliver app invokes (the compiled binary's own path). */
  execPath?: string;
  install?: (o: InstallDeliverAppOptions) => Promise<{ installed: string[]; notes: string[] }>;
  copy?: (paths: readonly string[], o: CopyOptions) => Promise<{ notes: string[] }>;
  readClip?: (o: ReadOptions) => Promise<{ snapshot: ClipboardSnapshot; notes: string[] }>;
  pasteUi?: PasteUi;
  /** stdin is a character device but no terminal (a GUI launch's /dev/null). */
  stdinIsDevice?: boolean;
}

/** A private temp directory for stdin and clipboard bytes, made only when first needed. */
type Spool = LazyPrivateTempDir;

/** A gathered payload: host paths, or one private temp file with its landing name. */
type Payload = { kind: 'paths'; paths: string[] } | { kind: 'file'; file: string; name: string };

function readable(io: Io): Readable {
  const s = io.stdinStream ?? process.stdin;
  return s instanceof Readable ? s : Readable.from(s as AsyncIterable<Buffer>);
}

function hostLookup(io: Io, deps: DeliverDeps): ToolLookup {
  if (deps.lookup !== undefined) return deps.lookup;
  // deliver is machine-scoped: it declines the trees known without a project (adr/0046), as its engine pool does.
  const declinedRoots = treeRoots(storeWritableTrees(byreHome(io.env)));
  return createHostTools({ declinedRoots, env: io.env }).resolve;
}

export async function deliverCommand(
  io: Io,
  args: readonly string[],
  options: DeliverOptions,
  deps: DeliverDeps = {},
): Promise<void> {
  const plan = planDelivery(args, options, {
    stdinIsTty: io.stdinIsTty,
    stdinIsDevice: deps.stdinIsDevice ?? (!io.stdinIsTty && isCharacterDevice(0)),
  });
  const skipUidCheck = options.skipUidCheck === true;
  switch (plan.kind) {
    case 'install-app':
      return installApp(io, plan.remote, options, deps);
    case 'boxes': {
      const { pool, podman } = localTransferEngines(io, deps.pool);
      const d = await discoverBoxes(pool, { callerUid: io.uid, skipUidCheck, podman });
      io.stdout.write(formatBoxLines(d.boxes));
      if (d.partial) {
        throw new PartialPoolError(`only part of the engine pool answered: ${d.notes.join('; ')}`, {
          rule: 'transfer.partial-pool',
        });
      }
      return;
    }
    case 'tar':
    case 'deliver':
      return deliverPayload(io, plan, options, deps);
  }
}

async function installApp(
  io: Io,
  remote: SshTarget | null,
  options: DeliverOptions,
  deps: DeliverDeps,
): Promise<void> {
  const install = deps.install ?? (await import('../transfer/app/install.js')).installDeliverApp;
  const result = await install({
    byrePath: deps.execPath ?? process.execPath,
    ...(remote === null ? {} : { ssh: remote.raw }),
    ...(options.box === undefined ? {} : { box: options.box }),
    ...(options.remoteByre === undefined ? {} : { remoteByre: options.remoteByre }),
    ...(options.name === undefined ? {} : { label: options.name }),
    home: deps.home ?? io.env['HOME'] ?? homedir(),
    platform: deps.platform ?? process.platform,
    lookup: hostLookup(io, deps),
  });
  for (const p of result.installed) io.stdout.write(`${escapeTerminal(p)}\n`);
  sayAll(io.stderr, result.notes);
}

/** Where a delivery goes: a local box, or a box behind ssh. */
type Destination =
  | { kind: 'local'; box: FoundBox; label: string }
  | { kind: 'remote'; ctx: RemoteContext & { box: string }; label: string };

async function deliverPayload(
  io: Io,
  plan: Extract<DeliverPlan, { kind: 'tar' | 'deliver' }>,
  options: DeliverOptions,
  deps: DeliverDeps,
): Promise<void> {
  const input: DeliverInput | { kind: 'tar' } = plan.kind === 'tar' ? plan : plan.input;
  const stdinBusy = input.kind === 'tar' || input.kind === 'stdin';
  const dest =
    plan.kind === 'deliver' && plan.remote !== null
      ? await remoteDestination(io, plan.remote, options, deps, stdinBusy)
      : await localDestination(io, options, deps, input.kind !== 'tar', stdinBusy);
  const meterTo = io.stderrIsTty === true ? { meterTo: io.stderr } : {};
  const notes: string[] = [];
  const spool = lazyPrivateTempDir('byre-deliver-');
  let result: DeliverResult;
  try {
    if (input.kind === 'tar') {
      if (dest.kind !== 'local') throw new Error('--tar is a local verb');
      const tarInput = readable(io);
      const { buildStage, stageTarInput } = await stageWriter();
      const { writer, done } = buildStage((w) => stageTarInput(w, tarInput));
      result = await deliverStaged(dest.box, writer.stream, done, meterTo);
      reportRenames(io, writer.plan.renames);
    } else {
      const payload = await gather(io, input, options, deps, spool, dest.label);
      result =
        dest.kind === 'local'
          ? await deliverLocal(io, dest.box, payload, notes, meterTo)
          : await deliverRemote(io, dest.ctx, payload, notes, meterTo);
    }
  } catch (error) {
    if (error instanceof DeliveryFailure) {
      printLanded(io, error.landed);
      throw error.error;
    }
    throw error;
  } finally {
    sayAll(io.stderr, notes);
    await spool.remove();
  }
  printLanded(io, result.landed);
  if (options.clip !== false) await clipLanded(io, result.landed, deps);
}

async function localDestination(
  io: Io,
  options: DeliverOptions,
  deps: DeliverDeps,
  interactive: boolean,
  stdinBusy: boolean,
): Promise<Destination> {
  const { pool, podman } = localTransferEngines(io, deps.pool);
  const { box } = await selectBox(io, pool, {
    podman,
    ...(options.box === undefined ? {} : { box: options.box }),
    skipUidCheck: options.skipUidCheck === true,
    stdinBusy,
    interactive,
  });
  return { kind: 'local', box, label: describeBox(box) };
}

/** --box goes to the remote as is (one connection); otherwise list, then pick here. */
async function remoteDestination(
  io: Io,
  target: SshTarget,
  options: DeliverOptions,
  deps: DeliverDeps,
  stdinBusy: boolean,
): Promise<Destination> {
  const ctx: RemoteContext = {
    target,
    ssh: requireResolved('ssh', hostLookup(io, deps)('ssh')),
    env: io.env,
    stderr: io.stderr,
    skipUidCheck: options.skipUidCheck === true,
    ...(options.remoteByre === undefined ? {} : { remoteByre: options.remoteByre }),
  };
  let box: string;
  let shown: string;
  if (options.box !== undefined) {
    box = options.box;
    shown = `--box ${box}`;
  } else {
    const { listRemoteBoxes } = await import('../transfer/remote/session.js');
    const listed = await listRemoteBoxes(ctx);
    const chosen = await pickTarget(io, listed, { stdinBusy, interactive: true });
    // The full id: the remote matches it exactly, whatever else it runs by then.
    box = chosen.id;
    shown = describeBox(chosen);
  }
  return { kind: 'remote', ctx: { ...ctx, box }, label: `${shown} on ${target.dest}` };
}

/** Turns the input mode into a payload; stdin and clipboard bytes are spooled privately first. */
async function gather(
  io: Io,
  input: DeliverInput,
  options: DeliverOptions,
  deps: DeliverDeps,
  spool: Spool,
  label: string,
): Promise<Payload> {
  const now = withDefaults(deps).clock();
  switch (input.kind) {
    case 'paths':
      return { kind: 'paths', paths: input.paths };
    case 'stdin': {
      // The box needs the exact size to tell a died stream from a finished one.
      const file = path.join(await spool.dir(), 'payload');
      await streamToNewFile(readable(io), file, 0o600);
      return { kind: 'file', file, name: options.name ?? stdinName(now) };
    }
    case 'paste':
      return pasteBeat(io, deps, spool, now, await pasteUi(io, deps).wait(label));
    case 'clipboard':
      // Nothing was pasted, so nothing can be a drag: the pasteboard decides alone.
      return pasteBeat(io, deps, spool, now, { kind: 'key' });
  }
}

function terminalUi(io: Io): PasteUi {
  const term: BeatTerminal = { input: process.stdin, screen: io.stderr };
  const beat = () => import('../transfer/paste/beat.js');
  return {
    wait: async (target) => (await beat()).waitForPaste(term, target),
    confirm: async (paths) => (await beat()).confirmDrag(term, paths),
  };
}

function pasteUi(io: Io, deps: DeliverDeps): PasteUi {
  return deps.pasteUi ?? terminalUi(io);
}

/** Reads the clipboard, classifies the capture against it, and spools what is to land. */
async function pasteBeat(
  io: Io,
  deps: DeliverDeps,
  spool: Spool,
  now: Date,
  capture: PasteCapture | null,
): Promise<Payload> {
  if (capture === null) {
    throw new ByreError('paste cancelled; nothing was delivered', {
      rule: 'transfer.paste-cancelled',
    });
  }
  const read = deps.readClip ?? (await import('../transfer/clipboard/read.js')).readClipboard;
  const { classifyPaste } = await import('../transfer/paste/classify.js');
  const clip = await read({
    platform: deps.platform ?? process.platform,
    env: io.env,
    lookup: hostLookup(io, deps),
  });
  sayAll(io.stderr, clip.notes);
  const decision = classifyPaste({
    capture,
    clipboard: clip.snapshot,
    now,
    exists: pathExists,
  });
  switch (decision.kind) {
    case 'files':
      return { kind: 'paths', paths: decision.paths };
    case 'confirm-drag':
      if (await pasteUi(io, deps).confirm(decision.paths))
        return { kind: 'paths', paths: decision.paths };
      throw new ByreError('not confirmed; nothing was delivered', {
        rule: 'transfer.drag-declined',
      });
    case 'image':
    case 'text': {
      const file = path.join(await spool.dir(), 'clipboard');
      const bytes = decision.kind === 'image' ? decision.png : decision.text;
      writeNewFileSync(file, bytes, 0o600);
      return { kind: 'file', file, name: decision.name };
    }
    case 'nothing':
      throw new ByreError('the paste and the clipboard were empty; nothing was delivered', {
        rule: 'transfer.paste-empty',
        remedy: 'copy a file, an image or text, then run byre deliver again',
      });
  }
}

function noSuchPath(p: string): ByreError {
  return new ByreError(`cannot read ${escapeTerminal(p)}: no such file or directory`, {
    rule: 'transfer.no-such-path',
  });
}

function statSource(p: string): void {
  if (!pathExists(p)) throw noSuchPath(p);
}

async function deliverLocal(
  io: Io,
  box: FoundBox,
  payload: Payload,
  notes: string[],
  meter: { meterTo?: Io['stderr'] },
): Promise<DeliverResult> {
  if (payload.kind === 'file') {
    return deliverFilePath(box, payload.file, landingName(io, payload.name), meter);
  }
  return deliverPaths(io, box, payload.paths, notes, meter);
}

/** Every source as ONE flat tar up one ssh exec. */
async function deliverRemote(
  io: Io,
  ctx: RemoteContext & { box: string },
  payload: Payload,
  notes: string[],
  meter: { meterTo?: Io['stderr'] },
): Promise<DeliverResult> {
  // Fail on a missing source before connecting.
  if (payload.kind === 'paths') for (const p of payload.paths) statSource(p);
  const { buildStage, stageLocalSources, stageNamedFile } = await stageWriter();
  const { uploadArchive } = await import('../transfer/remote/session.js');
  const { writer, done } = buildStage(
    (w) =>
      payload.kind === 'file'
        ? stageNamedFile(w, payload.file, payload.name)
        : stageLocalSources(w, payload.paths, notes),
    'flat',
  );
  try {
    return await uploadArchive({ ...ctx, ...meter }, writer.stream, done);
  } finally {
    reportRenames(io, writer.plan.renames);
  }
}

async function clipLanded(io: Io, landed: readonly string[], deps: DeliverDeps): Promise<void> {
  const copy = deps.copy ?? (await import('../transfer/clipboard/copy.js')).copyPathsToClipboard;
  const r = await copy(landed, {
    platform: deps.platform ?? process.platform,
    env: io.env,
    lookup: hostLookup(io, deps),
    stderr: { isTTY: io.stderrIsTty === true, write: (s) => io.stderr.write(s) },
  });
  sayAll(io.stderr, r.notes);
}

function printLanded(io: Io, landed: readonly string[]): void {
  for (const p of landed) io.stdout.write(`${escapeTerminal(p)}\n`);
}

function reportRenames(io: Io, renames: readonly { from: string; to: string }[]): void {
  for (const r of renames) {
    say(io.stderr, `renamed "${r.from}" → "${r.to}"`);
  }
}

function landingName(io: Io, wanted: string): string {
  const clean = sanitizeName(wanted);
  const name = isUnusableName(clean) ? 'stdin' : clean;
  if (name !== wanted) reportRenames(io, [{ from: wanted, to: name }]);
  return name;
}

async function deliverFilePath(
  box: FoundBox,
  file: string,
  name: string,
  meter: { meterTo?: Io['stderr'] },
): Promise<DeliverResult> {
  const r = await withNamedRegularFile(file, (open) =>
    deliverOneFile(box, { ...open, name }, meter),
  );
  if (r.kind === 'missing') throw noSuchPath(file);
  if (r.kind === 'not-regular') {
    throw new ByreError(
      `${escapeTerminal(file)} is ${describeNotRegular(r.what)}, not a regular file`,
      {
        rule: 'transfer.not-a-file',
      },
    );
  }
  return r.value;
}

async function deliverPaths(
  io: Io,
  box: FoundBox,
  args: readonly string[],
  notes: string[],
  meter: { meterTo?: Io['stderr'] },
): Promise<DeliverResult> {
  for (const p of args) statSource(p);
  const only = args[0];
  if (args.length === 1 && only !== undefined) {
    if (reachesRegularFile(only)) {
      const base = path.basename(path.resolve(only));
      return deliverFilePath(box, only, landingName(io, base), meter);
    }
  }
  const { buildStage, stageLocalSources } = await stageWriter();
  const { writer, done } = buildStage((w) => stageLocalSources(w, args, notes));
  const result = await deliverStaged(box, writer.stream, done, meter);
  reportRenames(io, writer.plan.renames);
  return result;
}
