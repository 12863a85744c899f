// The one error renderer: turns thrown data into the text on stderr. Nothing
// else in byre formats an error for the user; main.ts calls this and exits.

import {
  ByreError,
  ConfigError,
  EngineError,
  EXIT,
  PassthroughExit,
  type ConfigIssue,
  type Location,
} from '../errors.js';
import { escapeTerminal } from './escape.js';
import { redactSecrets } from './redact.js';
import { systemErrorToByre } from './system-error.js';

export function formatLocation(location: Location): string {
  let where = escapeTerminal(location.file);
  if (location.line !== undefined) {
    where += `:${location.line}`;
    if (location.column !== undefined) where += `:${location.column}`;
  }
  if (location.key !== undefined) where += ` (key ${escapeTerminal(location.key)})`;
  return where;
}

function renderIssue(issue: ConfigIssue): string[] {
  const lines = [
    `byre: ${formatLocation(issue.location)}: ${escapeTerminal(issue.message)} [${issue.rule}]`,
  ];
  if (issue.fix !== undefined) lines.push(`  fix: ${escapeTerminal(issue.fix)}`);
  return lines;
}

const STDERR_TAIL_LINES = 20;

/** Render an error byre can explain. Returns the lines, without trailing newline. */
function renderError(error: ByreError): string {
  if (error instanceof ConfigError) {
    const lines = error.issues.flatMap(renderIssue);
    if (error.issues.length > 1)
      lines.push(`byre: ${error.issues.length} problems; nothing was written.`);
    return lines.join('\n');
  }
  const lines: string[] = [];
  const where = error.location ? `${formatLocation(error.location)}: ` : '';
  lines.push(`byre: ${where}${escapeTerminal(error.message)}`);
  for (const detail of error.details) lines.push(`  ${escapeTerminal(detail)}`);
  if (error instanceof EngineError && error.stderr.trim() !== '') {
    const tail = error.stderr.trimEnd().split('\n').slice(-STDERR_TAIL_LINES);
    lines.push(`  ${error.engine} said:`);
    for (const line of tail) lines.push(`    ${escapeTerminal(line)}`);
  }
  if (error.remedy !== undefined) lines.push(`  fix: ${escapeTerminal(error.remedy)}`);
  return lines.join('\n');
}

/**
 * An underlying failure as detail lines under another error: its message,
 * details, engine output and remedy, unescaped (the renderer escapes each
 * line) and without a second `byre:`.
 */
export function causeDetails(error: unknown): string[] {
  if (!(error instanceof ByreError)) {
    return [error instanceof Error ? error.message : String(error)];
  }
  const lines = [error.message, ...error.details.map((d) => `  ${d}`)];
  if (error instanceof EngineError && error.stderr.trim() !== '') {
    lines.push(`  ${error.engine} said:`);
    for (const line of error.stderr.trimEnd().split('\n').slice(-STDERR_TAIL_LINES)) {
      lines.push(`    ${line}`);
    }
  }
  if (error.remedy !== undefined) lines.push(`  fix: ${error.remedy}`);
  return lines;
}

/** The crash banner for anything that is not a ByreError: a bug in byre. */
function renderCrash(error: unknown): string {
  const detail =
    error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
  return [
    'byre: CRASHED — this is a bug in byre, not in your setup.',
    '  Please report it with the text below.',
    '',
    escapeTerminal(detail).replace(/\\n/g, '\n'),
  ].join('\n');
}

/**
 * What main prints and exits with for anything thrown: nothing for the
 * agent's own status, the error renderer for what byre can explain, the crash
 * banner for the rest. Every text passes the credential redactor last.
 */
export function failureReport(error: unknown): { code: number; text: string | null } {
  if (error instanceof PassthroughExit) return { code: error.code, text: null };
  const known = error instanceof ByreError ? error : systemErrorToByre(error);
  if (known !== null) return { code: known.exitCode, text: redactSecrets(renderError(known)) };
  return { code: EXIT.crash, text: redactSecrets(renderCrash(error)) };
}
