// The Linux .desktop entry, pure. Exec quoting follows the Desktop Entry
// spec: each argument double-quoted when it needs it, with the string-value
// escape applied on top (so a literal backslash becomes four).

import { headerLines, labelSuffix, type ResolvedApp } from './identity.js';

const ICON_NAME = 'byre-deliver';

export function renderDesktopEntry(app: ResolvedApp): string {
  const exec = [...app.argv.map(desktopExecArg), '--', '%F'].join(' ');
  return [
    ...headerLines(app).map((l) => `# ${l}`),
    '[Desktop Entry]',
    'Type=Application',
    'Version=1.0',
    `Name=Byre Deliver${labelSuffix(app)}`,
    'Comment=Deliver files into a running byre box',
    `Exec=${exec}`,
    `Icon=${ICON_NAME}`,
    'Terminal=false',
    'Categories=Utility;',
    'StartupNotify=false',
    '',
  ].join('\n');
}

function desktopExecArg(arg: string): string {
  const escaped = arg.replace(/%/g, '%%');
  if (/^[A-Za-z0-9_@+=:,./-]+$/.test(escaped)) return escaped;
  const quoted = `"${escaped.replace(/(["`$\\])/g, '\\$1')}"`;
  return quoted.replace(/\\/g, '\\\\');
}
