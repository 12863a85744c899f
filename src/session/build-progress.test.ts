import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { buildProgressFor } from './build-progress.js';

let dir: string;
let err: string[];
const stderr = { write: (s: string) => err.push(s) };

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'byre-progress-'));
  err = [];
  // The clock the elapsed times are read from; no spinner frame fires on its own.
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
  rmSync(dir, { recursive: true, force: true });
});

const LOG = 'Step 1/2 : FROM debian\n ---> abc\nStep 2/2 : RUN make\nmake: *** [x] Error 2\n';

describe('buildProgressFor', () => {
  it('off a terminal: one line per step, the raw log only in the file', () => {
    const logFile = path.join(dir, 'build.log');
    const p = buildProgressFor({ stderr }, logFile, false)();
    const first = LOG.indexOf('\n') + 1;
    p.onOutput(LOG.slice(0, first));
    vi.setSystemTime(42_000);
    p.onOutput(LOG.slice(first));
    p.succeeded();
    expect(err.join('')).toBe(
      [
        'byre: building the image (0:00): step 1/2: FROM debian',
        'byre: building the image (0:42): step 2/2: RUN make',
        'byre: built the image in 0:42',
        '',
      ].join('\n'),
    );
    expect(readFileSync(logFile, 'utf8')).toBe(LOG);
    expect(statSync(logFile).mode & 0o777).toBe(0o600);
  });

  it('prints the whole log, escaped, when the build fails', () => {
    const logFile = path.join(dir, 'build.log');
    const p = buildProgressFor({ stderr, stderrIsTty: false }, logFile, false)();
    p.onOutput(`${LOG}\u001b]0;title\u0007\n`);
    p.failed();
    const said = err.join('');
    expect(said).toContain(
      `the image build failed; the engine's log follows (also in ${logFile}):`,
    );
    expect(said).toContain('make: *** [x] Error 2\n');
    expect(said).toContain('\\x1b]0;title\\x07');
    expect(said).not.toMatch(/\u001b/);
  });

  it('says nothing more of a log it already streamed (--verbose)', () => {
    const p = buildProgressFor({ stderr }, path.join(dir, 'build.log'), true)();
    p.onOutput(LOG);
    p.failed();
    expect(err.join('')).toBe(LOG);
    expect(p.log()).toBe(LOG);
  });

  it('on a terminal: redraws one spinner line and clears it at the end', () => {
    const p = buildProgressFor({ stderr, stderrIsTty: true }, path.join(dir, 'build.log'), false)();
    p.onOutput(LOG);
    p.succeeded();
    const said = err.join('');
    expect(said).toMatch(/^\r\u001b\[2K⠋ byre: building the image \(0:00\)/);
    expect(said).toContain('\r\u001b[2K⠹ byre: building the image (0:00): step 2/2: RUN make');
    expect(said).toMatch(/\r\u001b\[2Kbyre: built the image in 0:00\n$/);
    expect(said).not.toContain('make: ***');
  });

  it('keeps going when the log file cannot be written', () => {
    const p = buildProgressFor({ stderr }, path.join(dir, 'missing', 'build.log'), false)();
    p.onOutput(LOG);
    p.failed();
    expect(err.join('')).toContain('make: *** [x] Error 2');
    expect(err.join('')).not.toContain('also in');
  });
});
