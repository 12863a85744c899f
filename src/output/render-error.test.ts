import { describe, expect, it } from 'vitest';
import { ByreError, ConfigError, EngineError, UsageError } from '../errors.js';
import { causeDetails, failureReport } from './render-error.js';

/** What main prints for a failure: the rendered error, or the crash banner. */
function printed(error: unknown): string {
  const { text } = failureReport(error);
  if (text === null) throw new Error('failureReport printed nothing');
  return text;
}

describe('failureReport: an error byre can explain', () => {
  it('puts each detail on its own line, escaped line by line', () => {
    const err = new ByreError('a session is already running for this directory (abc).', {
      rule: 'develop.session-live',
      details: ['• re-attach to it: docker attach abc', '• stop it: \x1b[31mdocker stop abc'],
    });
    expect(printed(err).split('\n')).toEqual([
      'byre: a session is already running for this directory (abc).',
      '  • re-attach to it: docker attach abc',
      '  • stop it: \\x1b[31mdocker stop abc',
    ]);
  });

  it('nests a cause as details: one byre: prefix, its remedy and engine output kept', () => {
    const cause = new EngineError('docker run failed (exit 1)', {
      engine: 'docker',
      argv: ['run'],
      stderr: 'no such network\n',
      remedy: 'check the engine',
    });
    const err = new ByreError('the network wall did not apply:', {
      rule: 'develop.firewall-failed',
      details: causeDetails(cause),
      remedy: 'fix the cause above',
    });
    const text = printed(err);
    expect(text.match(/byre:/g)).toHaveLength(1);
    expect(text).not.toContain('\\n');
    expect(text.split('\n')).toEqual([
      'byre: the network wall did not apply:',
      '  docker run failed (exit 1)',
      '    docker said:',
      '      no such network',
      '    fix: check the engine',
      '  fix: fix the cause above',
    ]);
    expect(causeDetails(new Error('plain'))).toEqual(['plain']);
  });

  it('prints the byre prefix, location and remedy', () => {
    const err = new ByreError('bad thing', {
      rule: 'x.y',
      remedy: 'do the other thing',
      location: { file: '/tmp/a.config', line: 3, column: 5, key: 'env.FOO' },
    });
    expect(printed(err)).toBe(
      'byre: /tmp/a.config:3:5 (key env.FOO): bad thing\n  fix: do the other thing',
    );
  });

  it('lists every config issue with its rule id', () => {
    const err = new ConfigError([
      {
        rule: 'config.unknown-key',
        message: 'unknown key "x"',
        location: { file: 'f', line: 1, column: 1, key: 'x' },
        fix: 'remove it',
      },
      {
        rule: 'config.wrong-type',
        message: 'apt must be a list',
        location: { file: 'f', line: 2 },
      },
    ]);
    expect(printed(err).split('\n')).toEqual([
      'byre: f:1:1 (key x): unknown key "x" [config.unknown-key]',
      '  fix: remove it',
      'byre: f:2: apt must be a list [config.wrong-type]',
      'byre: 2 problems; nothing was written.',
    ]);
  });

  it('escapes what the engine said', () => {
    const err = new EngineError('build failed', {
      engine: 'docker',
      argv: ['build'],
      stderr: 'step 1\n\u001b[31mboom\u001b[0m\n',
    });
    expect(printed(err)).toContain('    \\x1b[31mboom\\x1b[0m');
  });

  it('renders usage errors like any other', () => {
    expect(printed(new UsageError("unknown command 'nope'"))).toBe("byre: unknown command 'nope'");
  });
});

describe('failureReport: anything else, the crash banner', () => {
  it('says it is a bug and carries the stack', () => {
    const text = printed(new TypeError('x is undefined'));
    expect(text).toMatch(/^byre: CRASHED — this is a bug in byre/);
    expect(text).toContain('TypeError: x is undefined');
  });
});
