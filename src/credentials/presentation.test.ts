// The one header the edge adds per injected request, and what it strips
// from the box's request first (adr/0070).

import { describe, expect, it } from 'vitest';

import type { Presentation } from '../config/inject.js';
import {
  applyPresentation,
  concealedForms,
  headerValueProblem,
  presentCredential,
} from './presentation.js';

const SECRET = 'sk-ant-api03-AbC_123~xyz';

describe('presentCredential', () => {
  it.each<[Presentation, string, string]>([
    [{ kind: 'header', name: 'X-Api-Key' }, 'x-api-key', SECRET],
    [{ kind: 'header', name: 'x-goog-api-key' }, 'x-goog-api-key', SECRET],
    [{ kind: 'bearer' }, 'authorization', `Bearer ${SECRET}`],
    // RFC 7617's own example: Aladdin / open sesame.
    [{ kind: 'basic', user: 'Aladdin' }, 'authorization', 'Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=='],
  ])('%j', (presentation, name, value) => {
    const secret = presentation.kind === 'basic' ? 'open sesame' : SECRET;
    expect(presentCredential(presentation, secret)).toEqual({ ok: true, header: { name, value } });
  });

  it('encodes a Basic pair as UTF-8', () => {
    const r = presentCredential({ kind: 'basic', user: 'x-access-token' }, 'ghp_é');
    expect(r.ok && Buffer.from(r.header.value.slice(6), 'base64').toString('utf8')).toBe(
      'x-access-token:ghp_é',
    );
  });

  it.each([
    ['', 'empty'],
    ['abc\r\nX-Evil: 1', 'line break'],
    ['abc\ndef', 'line break'],
    ['abc\u0000', 'NUL'],
    ['abc\u007f', 'control'],
    ['abc\u0085', 'control'],
    ['ab€', 'Latin-1'],
    [' abc', 'white space'],
    ['abc\t', 'white space'],
  ])('refuses a value that cannot travel in a header (%j), never quoting it', (value, says) => {
    for (const p of [{ kind: 'bearer' }, { kind: 'header', name: 'k' }] as Presentation[]) {
      const r = presentCredential(p, value);
      expect(r.ok).toBe(false);
      if (r.ok) continue;
      expect(r.problem).toContain(says);
      if (value.trim() !== '') expect(r.problem).not.toContain(value.trim());
    }
    expect(headerValueProblem(value)).not.toBeNull();
  });

  it('takes tabs and spaces inside, and obs-text', () => {
    expect(headerValueProblem('a b\tc\u00e9')).toBeNull();
  });
});

describe('concealedForms', () => {
  it('lists the value and the header as presented, once each', () => {
    expect(concealedForms({ kind: 'header', name: 'X-Api-Key' }, 'sk-1')).toEqual(['sk-1']);
    expect(concealedForms({ kind: 'bearer' }, 'tok')).toEqual(['tok', 'Bearer tok']);
  });

  it("adds basic's token, which decodes to the value", () => {
    const token = Buffer.from('x-access-token:tok', 'utf8').toString('base64');
    expect(concealedForms({ kind: 'basic', user: 'x-access-token' }, 'tok')).toEqual([
      'tok',
      `Basic ${token}`,
      token,
    ]);
  });

  it('lists nothing for a value that cannot be presented', () => {
    expect(concealedForms({ kind: 'bearer' }, 'a\nb')).toEqual([]);
  });
});

describe('the headers a presentation strips', () => {
  /** One header under each name a presentation may strip, and one it never does. */
  const sent = ['X-Api-Key', 'a', 'Authorization', 'b', 'Proxy-Authorization', 'c', 'Accept', 'd'];
  const names = (raw: readonly string[]): string[] => raw.filter((_, i) => i % 2 === 0);
  /** The names (lowercase, sorted) applyPresentation removed from `sent`. */
  const headersToStrip = (presentation: Presentation): string[] => {
    const kept = names(applyPresentation(sent, presentation, { name: 'x-added', value: 'v' }));
    return names(sent)
      .filter((n) => !kept.includes(n))
      .map((n) => n.toLowerCase())
      .sort();
  };

  it('strips the presented name and the proxy’s credentials', () => {
    expect(headersToStrip({ kind: 'header', name: 'X-Api-Key' })).toEqual([
      'proxy-authorization',
      'x-api-key',
    ]);
    expect(headersToStrip({ kind: 'bearer' })).toEqual(['authorization', 'proxy-authorization']);
    expect(headersToStrip({ kind: 'basic', user: 'u' })).toEqual([
      'authorization',
      'proxy-authorization',
    ]);
  });
});

describe('applyPresentation', () => {
  const raw = [
    'Host',
    'api.anthropic.com',
    'X-API-KEY',
    'byre-edge-sentinel',
    'x-api-key',
    'second-forged',
    'Proxy-Authorization',
    'Basic Zm9v',
    'Authorization',
    'Bearer byre-edge-sentinel',
    'Content-Type',
    'application/json',
  ];

  it('replaces every box-sent copy of the header and keeps the rest in order', () => {
    const p: Presentation = { kind: 'header', name: 'x-api-key' };
    const r = presentCredential(p, SECRET);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(applyPresentation(raw, p, r.header)).toEqual([
      'Host',
      'api.anthropic.com',
      'Authorization',
      'Bearer byre-edge-sentinel',
      'Content-Type',
      'application/json',
      'x-api-key',
      SECRET,
    ]);
  });

  it('replaces the box’s Authorization for bearer', () => {
    const p: Presentation = { kind: 'bearer' };
    const r = presentCredential(p, SECRET);
    if (!r.ok) throw new Error('refused');
    const out = applyPresentation(raw, p, r.header);
    expect(out.filter((_, i) => i % 2 === 0 && /^authorization$/i.test(out[i] ?? ''))).toHaveLength(
      1,
    );
    expect(out.slice(-2)).toEqual(['authorization', `Bearer ${SECRET}`]);
    expect(out).toContain('X-API-KEY');
  });

  it('ignores a dangling name with no value', () => {
    const p: Presentation = { kind: 'bearer' };
    expect(applyPresentation(['Accept'], p, { name: 'authorization', value: 'Bearer x' })).toEqual([
      'authorization',
      'Bearer x',
    ]);
  });
});
