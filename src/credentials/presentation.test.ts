// The one header the edge adds per injected request, and the forms of the
// value it masks in responses (adr/0070).

import { describe, expect, it } from 'vitest';

import type { Presentation } from '../config/inject.js';
import { concealedForms, headerValueProblem, presentCredential } from './presentation.js';

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
