// What a person sees while byre builds a box image: one progress line (step n
// of N, the step's first line, elapsed time; redrawn with a spinner on a
// terminal, one line per step otherwise) instead of the engine's raw log.
// The raw log is kept whole in the project's store and printed when the build
// fails; with --verbose it streams as it comes, as before.

import { openLogFile } from '../host/log-file.js';
import type { Writer } from '../io.js';
import { escapeTerminal, escapeTerminalBlock } from '../output/escape.js';
import { say } from '../output/notes.js';
import {
  formatElapsed,
  parseBuildStep,
  progressText,
  SPINNER,
  type BuildStep,
} from './build-steps.js';

export interface BuildProgress {
  /** Feed every chunk of engine output here. */
  onOutput(chunk: string): void;
  /** The build finished: clear the line, say how long it took. */
  succeeded(): void;
  /** The build failed: clear the line and print the whole log (unless it already streamed). */
  failed(options?: { printLog: boolean }): void;
  /** Everything the engine printed (cut from the front past MAX_KEPT). */
  log(): string;
  /** Whether the engine announced a step: it answered and started building. */
  started(): boolean;
}

interface BuildProgressOptions {
  stderr: Writer;
  tty: boolean;
  verbose: boolean;
  /** Where the whole log is kept (0600, replaced by each build); null keeps it in memory only. */
  logFile: string | null;
  /** What is built, as the lines name it; `the image` (the box's) unless said. */
  subject?: string;
  now?: () => number;
}

/** How much of the log byre keeps in memory to print; the file keeps all of it. */
const MAX_KEPT = 4 * 1024 * 1024;
const FRAME_MS = 100;

function buildProgress(opts: BuildProgressOptions): BuildProgress {
  const now = opts.now ?? Date.now;
  const subject = opts.subject ?? 'the image';
  const start = now();
  const logFile = opts.logFile === null ? null : openLogFile(opts.logFile);
  let kept = '';
  let cut = false;
  let partial = '';
  let step: BuildStep | null = null;
  let frame = 0;
  let drawn = false;
  let timer: ReturnType<typeof setInterval> | undefined;

  const draw = (): void => {
    const text = escapeTerminal(progressText(step, now() - start));
    opts.stderr.write(`\r\x1b[2K${SPINNER[frame % SPINNER.length]} byre: ${text}`);
    frame += 1;
    drawn = true;
  };
  const clear = (): void => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
    if (drawn) opts.stderr.write('\r\x1b[2K');
    drawn = false;
  };
  if (!opts.verbose && opts.tty) {
    draw();
    timer = setInterval(draw, FRAME_MS);
    timer.unref();
  }

  const onStep = (next: BuildStep): void => {
    step = next;
    if (opts.verbose) return;
    if (opts.tty) draw();
    else say(opts.stderr, progressText(step, now() - start));
  };

  const closeLog = (): void => logFile?.close();

  return {
    onOutput(chunk) {
      if (opts.verbose) opts.stderr.write(chunk);
      // A failed write is dropped: the kept copy below still has it.
      logFile?.write(chunk);
      kept += chunk;
      if (kept.length > MAX_KEPT) {
        kept = kept.slice(kept.length - MAX_KEPT);
        cut = true;
      }
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const s = parseBuildStep(line);
        if (s !== null) onStep(s);
      }
    },
    succeeded() {
      clear();
      closeLog();
      if (!opts.verbose) say(opts.stderr, `built ${subject} in ${formatElapsed(now() - start)}`);
    },
    failed(options = { printLog: true }) {
      clear();
      closeLog();
      if (opts.verbose || !options.printLog) return;
      const where = logFile === null || opts.logFile === null ? '' : ` (also in ${opts.logFile})`;
      say(opts.stderr, `${subject} build failed; the engine's log follows${where}:`);
      if (cut) opts.stderr.write('[… the start of the log is only in the file …]\n');
      opts.stderr.write(escapeTerminalBlock(kept.replace(/\r\n/g, '\n')));
      if (!kept.endsWith('\n')) opts.stderr.write('\n');
    },
    log: () => kept,
    started: () => step !== null,
  };
}

/** The progress factory develop and rebuild hand to ensureImage. */
export function buildProgressFor(
  io: { stderr: Writer; stderrIsTty?: boolean },
  logFile: string,
  verbose: boolean,
  subject?: string,
): () => BuildProgress {
  return () =>
    buildProgress({
      stderr: io.stderr,
      tty: io.stderrIsTty === true,
      verbose,
      logFile,
      ...(subject === undefined ? {} : { subject }),
    });
}
