// How the edge presents an injected credential on a request (adr/0070): the
// one header it sets, and the forms of the value a response must not carry
// back. Pure (the edge's script, which strips what the box sent under that
// name, is src/gen/chassis/byre-edge.cjs). A value that would break out of its header (a line break, a
// NUL, any control byte but a tab) is refused, never mangled, and no
// problem text ever quotes the value.

import type { Presentation } from '../config/inject.js';

interface PresentedHeader {
  /** Lowercase: HTTP/1.1 and HTTP/2 both read it so. */
  name: string;
  value: string;
}

type PresentResult = { ok: true; header: PresentedHeader } | { ok: false; problem: string };

/**
 * RFC 9110 field-value: visible ASCII, space, tab and obs-text, less the C1
 * controls (0x80-0x9f), which byre refuses wherever it takes text.
 */
const FIELD_VALUE = /^[\t\x20-\x7e\xa0-\xff]*$/;

/** Why a credential cannot travel in a header, or null. The value itself is never in the text. */
export function headerValueProblem(value: string): string | null {
  if (value === '') return 'the credential is empty';
  if (!FIELD_VALUE.test(value)) {
    return 'the credential holds a line break, a NUL or another control character, or a character beyond Latin-1, so it cannot travel in an HTTP header';
  }
  if (/^[ \t]|[ \t]$/.test(value)) {
    return 'the credential starts or ends with white space, which HTTP strips from a header';
  }
  return null;
}

/** The header a request to an injected host carries: exactly one, built here only. */
export function presentCredential(presentation: Presentation, value: string): PresentResult {
  const problem = headerValueProblem(value);
  if (problem !== null) return { ok: false, problem };
  switch (presentation.kind) {
    case 'header':
      return { ok: true, header: { name: presentation.name.toLowerCase(), value } };
    case 'bearer':
      return { ok: true, header: { name: 'authorization', value: `Bearer ${value}` } };
    case 'basic': {
      // RFC 7617: base64 of user ":" password, in UTF-8.
      const token = Buffer.from(`${presentation.user}:${value}`, 'utf8').toString('base64');
      return { ok: true, header: { name: 'authorization', value: `Basic ${token}` } };
    }
  }
}

/**
 * Every form of the credential a response must not carry back to the box:
 * the value, and the header as presented (for basic, its base64 token too,
 * which decodes to the value). The edge masks each where a response holds
 * it; a form that holds another is still listed, so the longer is masked
 * whole. Empty when the value cannot be presented.
 */
export function concealedForms(presentation: Presentation, value: string): string[] {
  const presented = presentCredential(presentation, value);
  if (!presented.ok) return [];
  const forms = [value, presented.header.value];
  if (presentation.kind === 'basic') forms.push(presented.header.value.slice('Basic '.length));
  return [...new Set(forms)];
}
