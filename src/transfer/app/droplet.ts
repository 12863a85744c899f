// The macOS droplet's AppleScript source, pure. osacompile assembles it into
// an applet; the same text is kept at Contents/Resources/droplet.applescript,
// which is the bundle's ownership marker.

import { GUI_PATH_TAIL, headerLines, type ResolvedApp } from './identity.js';
import { shellQuote } from '../../output/shell-quote.js';

export function renderDropletScript(app: ResolvedApp): string {
  const command = `PATH="$PATH:${GUI_PATH_TAIL}" ${shellQuote(app.argv)}`;
  return [
    ...headerLines(app).map((l) => `-- ${l}`),
    '--',
    '-- Byre Deliver: drop files or folders on this app to deliver them into a',
    '-- running byre box; open it without files to deliver the clipboard.',
    '',
    `property deliverCommand : ${appleScriptString(command)}`,
    '',
    'on open droppedItems',
    '\tset argv to " --"',
    '\trepeat with anItem in droppedItems',
    '\t\tset argv to argv & " " & quoted form of POSIX path of anItem',
    '\tend repeat',
    '\trunDeliver(argv)',
    'end open',
    '',
    'on run',
    '\trunDeliver("")',
    'end run',
    '',
    'on runDeliver(extraArgs)',
    '\ttry',
    '\t\tdo shell script deliverCommand & extraArgs & " </dev/null"',
    '\ton error errText',
    '\t\tdisplay alert "Byre Deliver" message errText as critical',
    '\tend try',
    'end runDeliver',
    '',
  ].join('\n');
}

/** An AppleScript string literal: backslash and double quote escaped. */
function appleScriptString(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}
