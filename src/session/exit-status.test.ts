import { describe, expect, it } from 'vitest';
import { interpretExit } from './exit-status.js';

describe('interpretExit', () => {
  it.each([0, 1, 7, 125, 126, 127])('%i passes through', (code) => {
    expect(interpretExit(code)).toEqual({ kind: 'passthrough', code });
  });

  it.each([
    [137, /SIGKILL.*killed out from under/],
    [130, /possibly SIGINT/],
    [143, /possibly SIGTERM/],
    [129, /possibly SIGHUP/],
    [134, /possibly SIGABRT/],
    [139, /possibly SIGSEGV/],
    [141, /possibly SIGPIPE/],
    [192, /possibly signal 64/],
    [128, /^the box exited 128$/],
    [255, /^the box exited 255$/],
  ])('%i is explained', (code, message) => {
    const out = interpretExit(code);
    expect(out.kind).toBe('failed');
    expect(out.kind === 'failed' ? out.message : '').toMatch(message);
  });
});
