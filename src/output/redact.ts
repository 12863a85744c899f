// The last line of defence for decrypted credential values (adr/0012): every
// value byre opens is registered here, and main.ts passes everything it
// prints about a failure (error renderer, crash banner, a stray rejection)
// through `redactSecrets`. byre's own messages never quote a value; this
// catches what a bug or a box echoing its stdin might.

import { escapeTerminal } from './escape.js';

const secrets = new Set<string>();
/** Shorter values would redact ordinary words; they still never appear in byre's own text. */
const MIN_REDACTED = 4;

const REDACTED = '[redacted credential]';

/** Remember a decrypted value, in every form byre could print it in. */
export function registerSecret(value: Uint8Array | string): void {
  const raw = typeof value === 'string' ? value : new TextDecoder().decode(value);
  const forms = [
    raw,
    raw.trim(),
    escapeTerminal(raw),
    JSON.stringify(raw).slice(1, -1),
    Buffer.from(typeof value === 'string' ? new TextEncoder().encode(value) : value).toString(
      'base64',
    ),
    ...raw.split(/\r?\n/),
  ];
  for (const form of forms) if (form.length >= MIN_REDACTED) secrets.add(form);
}

/** Every registered form replaced; the longest first so a value's lines never leak around it. */
export function redactSecrets(text: string): string {
  if (secrets.size === 0) return text;
  let out = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out;
}

/** Test hook: forget every registered value. */
export function clearSecrets(): void {
  secrets.clear();
}
