// installDeliverApp: writes the planned deliver-app artifacts. Every gate is
// checked before anything is written, so a refusal leaves no half install;
// text files are replaced by rename, bundles by a staged copy swapped in.

import { spawn } from 'node:child_process';
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { ByreError } from '../../errors.js';
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
          for (const f of a.files) writeFile(path.join(staged, f.rel), f.content);
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
  const st = lstatOrNull(a.path);
  if (st === null) return { kind: 'absent' };
  if (a.kind === 'text') {
    return st.isFile() ? { kind: 'text', text: readFileSync(a.path, 'utf8') } : { kind: 'other' };
  }
  if (!st.isDirectory()) return { kind: 'other' };
  const markerPath = path.join(a.path, a.kind === 'applet' ? APPLET_MARKER : a.marker);
  const mst = lstatOrNull(markerPath);
  if (mst === null) return { kind: 'text', text: null };
  return mst.isFile()
    ? { kind: 'text', text: readFileSync(markerPath, 'utf8') }
    : { kind: 'other' };
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
  const scratch = mkdtempSync(path.join(tmpdir(), 'byre-droplet-'));
  try {
    const src = path.join(scratch, 'droplet.applescript');
    writeFileSync(src, a.source);
    await swapInAsync(a.path, async (staged) => {
      const r = await run(osacompile, ['-o', staged, src]);
      if (r.code !== 0) {
        throw new ByreError(`osacompile failed: ${escapeTerminal(r.stderr.trim())}`, {
          rule: 'install-app.osacompile',
        });
      }
      writeFile(path.join(staged, APPLET_MARKER), a.source);
      writeBytes(path.join(staged, 'Contents/Resources/droplet.icns'), a.icns);
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
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Builds a bundle beside its final path, then swaps it in (old copy removed only after). */
function swapIn(finalPath: string, build: (staged: string) => void): void {
  const staged = stagedPath(finalPath);
  rmSync(staged, { recursive: true, force: true });
  mkdirSync(staged, { recursive: true });
  build(staged);
  commitStaged(finalPath, staged);
}

async function swapInAsync(
  finalPath: string,
  build: (staged: string) => Promise<void>,
): Promise<void> {
  const staged = stagedPath(finalPath);
  mkdirSync(path.dirname(finalPath), { recursive: true });
  rmSync(staged, { recursive: true, force: true });
  try {
    await build(staged);
  } catch (e) {
    rmSync(staged, { recursive: true, force: true });
    throw e;
  }
  commitStaged(finalPath, staged);
}

function stagedPath(finalPath: string): string {
  const ext = path.extname(finalPath);
  return path.join(path.dirname(finalPath), `.${path.basename(finalPath, ext)}.staged${ext}`);
}

function commitStaged(finalPath: string, staged: string): void {
  const ext = path.extname(finalPath);
  const old = path.join(path.dirname(finalPath), `.${path.basename(finalPath, ext)}.old${ext}`);
  rmSync(old, { recursive: true, force: true });
  const had = lstatOrNull(finalPath) !== null;
  if (had) renameSync(finalPath, old);
  renameSync(staged, finalPath);
  if (had) rmSync(old, { recursive: true, force: true });
}

function writeTextAtomic(p: string, content: string): void {
  writeBytesAtomic(p, new TextEncoder().encode(content));
}

function writeBytesAtomic(p: string, bytes: Uint8Array): void {
  mkdirSync(path.dirname(p), { recursive: true });
  const tmp = path.join(path.dirname(p), `.${path.basename(p)}.byre-tmp-${process.pid}`);
  writeFileSync(tmp, bytes, { mode: 0o644 });
  renameSync(tmp, p);
}

function writeFile(p: string, content: string): void {
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, content, { mode: 0o644 });
}

function writeBytes(p: string, bytes: Uint8Array): void {
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, bytes, { mode: 0o644 });
}

function readBytes(p: string): Uint8Array | null {
  const st = lstatOrNull(p);
  if (st === null) return null;
  // A symlink or directory where the icon goes is not byre's: judged foreign by content.
  return st.isFile() ? new Uint8Array(readFileSync(p)) : new Uint8Array();
}

function lstatOrNull(p: string): Stats | null {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}

const runCommand: RunCommand = (file, args) =>
  new Promise((resolve) => {
    const child = spawn(file, [...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      if (stderr.length < 65536) stderr += c.toString('utf8');
    });
    child.on('error', (e) => resolve({ code: null, stderr: e.message }));
    child.on('close', (code) => resolve({ code, stderr }));
  });
