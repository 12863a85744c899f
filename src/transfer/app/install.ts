// installDeliverApp: writes the planned deliver-app artifacts. Every gate is
// checked before anything is written, so a refusal leaves no half install;
// text files are replaced by rename, bundles by a staged copy swapped in. Its
// IO is host/'s: what is there is read never through a link, never waiting on
// a FIFO, under a cap; a file lands through a fresh no-follow temp renamed in.

import path from 'node:path';

import { ByreError } from '../../errors.js';
import { writeFileAtomicSync } from '../../host/atomic-write.js';
import { makeUserDirsSync } from '../../host/make-dirs.js';
import { entryKind } from '../../host/path-view.js';
import { lazyPrivateTempDir, writeNewFileSync } from '../../host/private-temp.js';
import { readRegularFile } from '../../host/read-regular.js';
import { removeTreeSync, swapTreeInSync } from '../../host/remove.js';
import { runProgram } from '../../host/spawn.js';
import { escapeTerminal } from '../../output/escape.js';
import type { ToolLookup } from '../clipboard/plan.js';
import { isByreIcon } from './icon.js';
import type { DeliverAppSpec } from './identity.js';
import {
  APPLET_MARKER,
  judgeExisting,
  judgeIcon,
  planDeliverApp,
  type Artifact,
  type Existing,
} from './plan.js';

/** What is already where an artifact goes is read up to this (byre's own are a few KiB). */
const EXISTING_CAP = 1024 * 1024;

export type RunCommand = (
  file: string,
  args: readonly string[],
) => Promise<{ code: number | null; stderr: string }>;

export interface InstallDeliverAppOptions extends DeliverAppSpec {
  home: string;
  platform: NodeJS.Platform;
  /** Resolves osacompile, codesign and plutil to absolute paths (createHostTools(...).resolve). */
  lookup: ToolLookup;
  run?: RunCommand;
}

export interface InstallResult {
  /** Paths written or already current, in plan order: what --install-app prints. */
  installed: string[];
  /** Skipped artifacts and degraded steps, for stderr. */
  notes: string[];
}

export async function installDeliverApp(opts: InstallDeliverAppOptions): Promise<InstallResult> {
  const run = opts.run ?? runCommand;
  const plan = planDeliverApp(opts, { home: opts.home, platform: opts.platform });
  const notes = [...plan.notes];
  let artifacts = plan.artifacts;

  if (opts.platform === 'darwin') {
    const osacompile = opts.lookup('osacompile');
    if (osacompile.kind !== 'found') {
      notes.push('deliver app: osacompile is not usable here; the droplet app was skipped');
      artifacts = artifacts.filter((a) => a.kind !== 'applet');
    }
  }

  // Gate everything first.
  for (const a of artifacts) {
    if (a.kind === 'icon') continue;
    judgeExisting(a.path, inspect(a), plan.app);
  }

  const installed: string[] = [];
  for (const a of artifacts) {
    switch (a.kind) {
      case 'text':
        writeTextAtomic(a.path, a.content);
        installed.push(a.path);
        break;
      case 'icon': {
        const verdict = judgeIcon(readBytes(a.path), a.bytes, isByreIcon);
        if (verdict === 'foreign') {
          notes.push(`deliver app: left ${escapeTerminal(a.path)} alone — that icon is not byre's`);
          break;
        }
        if (verdict === 'write') writeBytesAtomic(a.path, a.bytes);
        installed.push(a.path);
        break;
      }
      case 'bundle':
        swapIn(a.path, (staged) => {
          for (const f of a.files) writeTextAtomic(path.join(staged, f.rel), f.content);
        });
        installed.push(a.path);
        break;
      case 'applet':
        await buildApplet(a, opts.lookup, run, notes);
        installed.push(a.path);
        break;
    }
  }
  return { installed, notes };
}

function inspect(a: Exclude<Artifact, { kind: 'icon' }>): Existing {
  if (a.kind === 'text') return existingText(a.path, { kind: 'absent' });
  const kind = entryKind(a.path);
  if (kind === 'missing') return { kind: 'absent' };
  if (kind !== 'dir') return { kind: 'other' };
  const markerPath = path.join(a.path, a.kind === 'applet' ? APPLET_MARKER : a.marker);
  return existingText(markerPath, { kind: 'text', text: null });
}

/** The text of the regular file at `p`; `other` for a link, a FIFO, anything else, or one past the cap. */
function existingText(p: string, absent: Existing): Existing {
  const read = readRegularFile(p, EXISTING_CAP);
  if (read.kind === 'missing') return absent;
  if (read.kind !== 'ok') return { kind: 'other' };
  return { kind: 'text', text: read.bytes.toString('utf8') };
}

async function buildApplet(
  a: Extract<Artifact, { kind: 'applet' }>,
  lookup: ToolLookup,
  run: RunCommand,
  notes: string[],
): Promise<void> {
  const tool = (name: string): string | null => {
    const r = lookup(name);
    return r.kind === 'found' ? r.path : null;
  };
  const osacompile = tool('osacompile');
  if (osacompile === null)
    throw new ByreError('osacompile vanished', { rule: 'install-app.osacompile' });
  const scratch = lazyPrivateTempDir('byre-droplet-');
  try {
    const src = path.join(await scratch.dir(), 'droplet.applescript');
    writeNewFileSync(src, a.source);
    await swapInAsync(a.path, async (staged) => {
      const r = await run(osacompile, ['-o', staged, src]);
      if (r.code !== 0) {
        throw new ByreError(`osacompile failed: ${escapeTerminal(r.stderr.trim())}`, {
          rule: 'install-app.osacompile',
        });
      }
      writeTextAtomic(path.join(staged, APPLET_MARKER), a.source);
      writeBytesAtomic(path.join(staged, 'Contents/Resources/droplet.icns'), a.icns);
      const plutil = tool('plutil');
      const plist = path.join(staged, 'Contents/Info.plist');
      if (
        plutil === null ||
        (await run(plutil, ['-replace', 'CFBundleIconFile', '-string', 'droplet', plist])).code !==
          0
      ) {
        notes.push(
          'deliver app: could not point the droplet at its icon (plutil); it keeps the stock applet icon',
        );
      }
      const codesign = tool('codesign');
      if (
        codesign === null ||
        (await run(codesign, ['--force', '--deep', '--sign', '-', staged])).code !== 0
      ) {
        notes.push(
          'deliver app: ad-hoc codesign failed; macOS may refuse to open the droplet until it is re-signed',
        );
      }
    });
  } finally {
    await scratch.remove();
  }
}

/** Builds a bundle beside its final path, then swaps it in (old copy removed only after). */
function swapIn(finalPath: string, build: (staged: string) => void): void {
  const staged = siblingPath(finalPath, 'staged');
  removeTreeSync(staged);
  makeUserDirsSync(staged);
  build(staged);
  commitStaged(finalPath, staged);
}

async function swapInAsync(
  finalPath: string,
  build: (staged: string) => Promise<void>,
): Promise<void> {
  const staged = siblingPath(finalPath, 'staged');
  makeUserDirsSync(path.dirname(finalPath));
  removeTreeSync(staged);
  try {
    await build(staged);
  } catch (e) {
    removeTreeSync(staged);
    throw e;
  }
  commitStaged(finalPath, staged);
}

/** `.<name>.<role><ext>` beside `finalPath`: the staged and the old copy of a bundle. */
function siblingPath(finalPath: string, role: 'staged' | 'old'): string {
  const ext = path.extname(finalPath);
  return path.join(path.dirname(finalPath), `.${path.basename(finalPath, ext)}.${role}${ext}`);
}

function commitStaged(finalPath: string, staged: string): void {
  swapTreeInSync(staged, finalPath, siblingPath(finalPath, 'old'));
}

function writeTextAtomic(p: string, content: string): void {
  writeBytesAtomic(p, new TextEncoder().encode(content));
}

/** Replaces `p` through a fresh no-follow temp sibling renamed over it, 0644 under the umask. */
function writeBytesAtomic(p: string, bytes: Uint8Array): void {
  makeUserDirsSync(path.dirname(p));
  writeFileAtomicSync(p, bytes, { mode: 0o644, durable: false });
}

/** The icon where it goes: null when none; a link, directory, FIFO or one past the cap reads as empty, which is not byre's. */
function readBytes(p: string): Uint8Array | null {
  const read = readRegularFile(p, EXISTING_CAP);
  if (read.kind === 'missing') return null;
  return read.kind === 'ok' ? new Uint8Array(read.bytes) : new Uint8Array();
}

const runCommand: RunCommand = async (file, args) => {
  const r = await runProgram(file, args, {
    env: process.env,
    stderr: { maxBytes: 65536, over: 'cut' },
  });
  return { code: r.code, stderr: r.error?.message ?? r.stderr.toString('utf8') };
};
