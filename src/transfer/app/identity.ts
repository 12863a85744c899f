// What makes a deliver-app artifact byre's, and which install it belongs to:
// the generated marker in a file's header, the identity token a labelled
// install carries, and the label -> file-name rules. Pure.

import { createHash } from 'node:crypto';

import { UsageError } from '../../errors.js';

const GENERATED_MARKER = 'byre-generated: deliver-app';
const IDENTITY_KEY = 'byre-identity:';
/** Only a file's header counts: a marker quoted deeper in a foreign file proves nothing. */
const HEADER_BYTES = 1024;

/** What the installed artifacts invoke. */
export interface DeliverAppSpec {
  /** Absolute path of the byre to run (process.execPath for the compiled binary). */
  byrePath: string;
  /** `ssh://[user@]host[:port]`, already validated by the caller. */
  ssh?: string;
  /** A fixed target box baked into the artifacts (--box). */
  box?: string;
  /** The remote byre binary (--remote-byre), only with ssh. */
  remoteByre?: string;
  /** --name: the install's label; defaults to the ssh host for an ssh install. */
  label?: string;
}

export interface ResolvedApp {
  /** null: the default, unlabelled install. */
  label: string | null;
  /** Present exactly when labelled: which target this label stands for. */
  identity: string | null;
  /** byre deliver argv, without the per-drop paths. */
  argv: string[];
}

export function resolveDeliverApp(spec: DeliverAppSpec): ResolvedApp {
  if (!spec.byrePath.startsWith('/')) {
    throw new UsageError(
      `the byre path baked into the deliver app must be absolute: ${spec.byrePath}`,
      {
        rule: 'install-app.relative-byre',
      },
    );
  }
  for (const v of [spec.byrePath, spec.ssh, spec.box, spec.remoteByre, spec.label]) {
    if (v !== undefined && /[\u0000-\u001f\u007f]/.test(v)) {
      throw new UsageError('deliver-app settings must not contain control characters', {
        rule: 'install-app.control-char',
      });
    }
  }
  const label = spec.label ?? (spec.ssh === undefined ? null : labelFromSsh(spec.ssh));
  if (label !== null && !/^[A-Za-z0-9][A-Za-z0-9._@-]{0,39}$/.test(label)) {
    throw new UsageError(`"${label}" cannot name a deliver app`, {
      rule: 'install-app.bad-label',
      remedy:
        'use --name with 1-40 letters, digits, ".", "_", "@" or "-", starting with a letter or digit',
    });
  }
  const argv = [spec.byrePath, 'deliver'];
  if (spec.ssh !== undefined) argv.push(spec.ssh);
  if (spec.remoteByre !== undefined) argv.push('--remote-byre', spec.remoteByre);
  if (spec.box !== undefined) argv.push('--box', spec.box);
  return { label, identity: label === null ? null : identityToken(spec), argv };
}

/**
 * The target a labelled install stands for (ssh destination and baked box).
 * The byre path and remote binary are left out: moving byre regenerates, it
 * does not clash.
 */
function identityToken(spec: Pick<DeliverAppSpec, 'ssh' | 'box'>): string {
  const digest = createHash('sha256')
    .update(JSON.stringify(['deliver-app/1', spec.ssh ?? '', spec.box ?? '']))
    .digest('hex');
  return `da1-${digest.slice(0, 16)}`;
}

/** ssh://user@host:2222 -> host-2222; the user stays out of file names. */
function labelFromSsh(ssh: string): string {
  const m = /^ssh:\/\/(?:[^@/]*@)?(\[[^\]]*\]|[^:/]*)(?::(\d+))?\/?$/.exec(ssh);
  const host = (m?.[1] ?? '').replace(/^\[|\]$/g, '');
  const raw = m?.[2] === undefined ? host : `${host}-${m[2]}`;
  return raw.replace(/[^A-Za-z0-9._@-]/g, '-').replace(/^[^A-Za-z0-9]+/, '') || 'remote';
}

export function hasGeneratedMarker(text: string): boolean {
  return text.slice(0, HEADER_BYTES).includes(GENERATED_MARKER);
}

/** The identity token in a header, or null. */
export function readIdentity(text: string): string | null {
  const header = text.slice(0, HEADER_BYTES);
  const at = header.indexOf(IDENTITY_KEY);
  if (at < 0) return null;
  const m = /^\s*([A-Za-z0-9-]+)/.exec(header.slice(at + IDENTITY_KEY.length));
  return m?.[1] ?? null;
}

/** Header comment lines (without comment syntax) every text artifact starts with. */
export function headerLines(app: ResolvedApp): string[] {
  const lines = [
    `${GENERATED_MARKER} (written by \`byre deliver --install-app\`; byre regenerates this file and your edits will be lost)`,
  ];
  if (app.identity !== null)
    lines.push(`${IDENTITY_KEY} ${app.identity} (label "${app.label ?? ''}")`);
  return lines;
}

/** Display name suffix: "" or " (label)". */
export function labelSuffix(app: ResolvedApp): string {
  return app.label === null ? '' : ` (${app.label})`;
}

/** Directories the GUI launch searches for docker, podman and ssh, after the caller's own PATH. */
export const GUI_PATH_TAIL = '/usr/local/bin:/opt/homebrew/bin:/opt/local/bin';
