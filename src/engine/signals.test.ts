import { constants } from 'node:os';
import { describe, expect, it } from 'vitest';
import { describeSignal, signalName, signalNumber } from './signals.js';

describe('signals', () => {
  it.each(['SIGHUP', 'SIGINT', 'SIGKILL', 'SIGTERM', 'SIGSEGV', 'SIGABRT', 'SIGPIPE'] as const)(
    '%s round-trips through the platform table',
    (name) => {
      const n = signalNumber(name);
      expect(n).toBe(constants.signals[name]);
      expect(signalName(n ?? -1)).toBe(name);
    },
  );

  it('knows nothing the platform does not', () => {
    expect(signalNumber('SIGNOPE')).toBeNull();
    expect(signalNumber('toString')).toBeNull();
    expect(signalName(0)).toBeNull();
    expect(signalName(1000)).toBeNull();
  });

  it('describes a name with its number', () => {
    expect(describeSignal('SIGSEGV')).toBe(`SIGSEGV (signal ${constants.signals.SIGSEGV})`);
    expect(describeSignal('SIGNOPE')).toBe('SIGNOPE');
  });
});
