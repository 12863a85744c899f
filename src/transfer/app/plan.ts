// Which deliver-app artifacts an install writes, where, and with what
// content; and the gate deciding whether an existing artifact may be
// replaced. Pure: install.ts does the reading and writing.

import { RefusedError } from '../../errors.js';
import { escapeTerminal } from '../../output/escape.js';
import { renderDesktopEntry } from './desktop.js';
import { renderDropletScript } from './droplet.js';
import { renderIconIcns, renderIconPng, ICON_SIZE } from './icon.js';
import {
  hasGeneratedMarker,
  readIdentity,
  resolveDeliverApp,
  type DeliverAppSpec,
  type ResolvedApp,
} from './identity.js';
import { renderQuickActionInfoPlist, renderWorkflowDocument } from './quick-action.js';

export type Artifact =
  /** A macOS applet assembled by osacompile; ownership rides Contents/Resources/droplet.applescript. */
  | { kind: 'applet'; path: string; source: string; icns: Uint8Array }
  /** A bundle of text files byre writes itself; `marker` (relative) decides ownership. */
  | { kind: 'bundle'; path: string; marker: string; files: { rel: string; content: string }[] }
  | { kind: 'text'; path: string; content: string }
  /** Judged by content: only byre's own icon bytes are replaced. */
  | { kind: 'icon'; path: string; bytes: Uint8Array };

interface DeliverAppPlan {
  app: ResolvedApp;
  artifacts: Artifact[];
  notes: string[];
}

export const APPLET_MARKER = 'Contents/Resources/droplet.applescript';

export function planDeliverApp(
  spec: DeliverAppSpec,
  host: { home: string; platform: NodeJS.Platform },
): DeliverAppPlan {
  const app = resolveDeliverApp(spec);
  const home = host.home.replace(/\/+$/, '');
  const suffix = app.label === null ? '' : ` (${app.label})`;
  const artifacts: Artifact[] = [];
  const notes: string[] = [];
  if (host.platform === 'darwin') {
    artifacts.push({
      kind: 'applet',
      path: `${home}/Applications/Byre Deliver${suffix}.app`,
      source: renderDropletScript(app),
      icns: renderIconIcns(),
    });
    artifacts.push({
      kind: 'bundle',
      path: `${home}/Library/Services/Deliver to Byre${suffix}.workflow`,
      marker: 'Contents/document.wflow',
      files: [
        { rel: 'Contents/Info.plist', content: renderQuickActionInfoPlist(app) },
        { rel: 'Contents/document.wflow', content: renderWorkflowDocument(app) },
      ],
    });
    notes.push('deliver app: the Linux .desktop entry is for freedesktop hosts; skipped on macOS');
  } else {
    const stem = app.label === null ? 'byre-deliver' : `byre-deliver-${app.label}`;
    artifacts.push({
      kind: 'text',
      path: `${home}/.local/share/applications/${stem}.desktop`,
      content: renderDesktopEntry(app),
    });
    artifacts.push({
      kind: 'icon',
      path: `${home}/.local/share/icons/hicolor/${ICON_SIZE}x${ICON_SIZE}/apps/byre-deliver.png`,
      bytes: renderIconPng(),
    });
    notes.push(
      'deliver app: the macOS droplet and Quick Action need osacompile; skipped on this host',
    );
  }
  return { app, artifacts, notes };
}

/** What an installer found at an artifact's path (or, for bundles, at its marker file). */
export type Existing =
  | { kind: 'absent' }
  /** Something is there but it is not the shape byre writes (a symlink, a directory for a file ...). */
  | { kind: 'other' }
  /** The marker text: a text artifact's content, a bundle's marker file (null: missing). */
  | { kind: 'text'; text: string | null };

/**
 * May byre replace what is there? Absent: yes. Byre's marker: yes, unless the
 * install is labelled and the file carries another install's identity.
 * Anything else is refused, naming the path.
 */
export function judgeExisting(path: string, existing: Existing, app: ResolvedApp): void {
  if (existing.kind === 'absent') return;
  const shown = escapeTerminal(path);
  if (existing.kind === 'other' || existing.text === null || !hasGeneratedMarker(existing.text)) {
    throw new RefusedError(`${shown} exists and byre did not write it — refusing to overwrite it`, {
      rule: 'install-app.foreign-file',
      remedy: `move ${shown} aside${app.label === null ? ', or install under another --name' : ''}`,
    });
  }
  if (app.identity !== null && readIdentity(existing.text) !== app.identity) {
    throw new RefusedError(
      `${shown} is byre's deliver app for a different target under the label "${app.label ?? ''}" — refusing to replace it`,
      {
        rule: 'install-app.label-clash',
        remedy: `pick another --name, or remove ${shown} to reuse the label`,
      },
    );
  }
}

/** Icons are judged by content: replace byre's own (current bytes or tagged), leave anything else. */
export function judgeIcon(
  existing: Uint8Array | null,
  ours: Uint8Array,
  isByreIcon: (b: Uint8Array) => boolean,
): 'write' | 'same' | 'foreign' {
  if (existing === null) return 'write';
  if (existing.length === ours.length && existing.every((b, i) => b === ours[i])) return 'same';
  return isByreIcon(existing) ? 'write' : 'foreign';
}
