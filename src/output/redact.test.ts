// The crash path: a decrypted value planted in every place a failure can
// carry text must not survive main's report (error renderer or crash banner).

import { afterEach, describe, expect, it } from 'vitest';

import { ByreError, EngineError } from '../errors.js';
import { clearSecrets, redactSecrets, registerSecret } from './redact.js';
import { failureReport } from './render-error.js';

/** What the report prints in place of a value. */
const REDACTED = '[redacted credential]';
const PLANTED = 'sk-live-9f8e7d6c5b4a\nsecond line';
const forms = [
  'sk-live-9f8e7d6c5b4a',
  'second line',
  Buffer.from(PLANTED).toString('base64'),
  'sk-live-9f8e7d6c5b4a\\nsecond line',
];

afterEach(() => clearSecrets());

function expectClean(text: string | null): void {
  expect(text).not.toBeNull();
  for (const form of forms) expect(text).not.toContain(form);
  expect(text).toContain(REDACTED);
}

describe('failureReport with a planted credential', () => {
  it('keeps it out of the crash banner (message and stack)', () => {
    registerSecret(new TextEncoder().encode(PLANTED));
    const bug = new TypeError(`cannot read ${PLANTED}`);
    const report = failureReport(bug);
    expect(report.code).toBe(70);
    expect(report.text).toContain('CRASHED');
    expectClean(report.text);
  });

  it('keeps it out of a rendered ByreError and its details', () => {
    registerSecret(PLANTED);
    const error = new ByreError(`value ${PLANTED}`, {
      rule: 'x',
      details: [PLANTED],
      remedy: `use ${Buffer.from(PLANTED).toString('base64')}`,
    });
    expectClean(failureReport(error).text);
  });

  it('keeps a box echoing its stdin out of an engine failure', () => {
    registerSecret(PLANTED);
    const error = new EngineError('docker exec failed (exit 4)', {
      engine: 'docker',
      argv: ['exec', '-i', 'box', 'sh'],
      stderr: `env KEY ${Buffer.from(PLANTED).toString('base64')}\n${PLANTED}`,
    });
    expectClean(failureReport(error).text);
  });

  it('leaves text alone when no value was opened', () => {
    expect(redactSecrets(`x ${PLANTED}`)).toBe(`x ${PLANTED}`);
  });

  it('does not redact tiny values (they would blank ordinary words)', () => {
    registerSecret('ab');
    expect(redactSecrets('ab cab')).toBe('ab cab');
  });
});
