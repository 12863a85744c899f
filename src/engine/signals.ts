// Signal names and numbers, from the platform's own table
// (os.constants.signals) rather than a hand-kept list. Pure.

import { constants } from 'node:os';

const BY_NAME: Readonly<Record<string, number>> = constants.signals;

/** `SIGSEGV` -> 11; null for a name this platform does not know. */
export function signalNumber(name: string): number | null {
  return Object.hasOwn(BY_NAME, name) ? (BY_NAME[name] ?? null) : null;
}

/** 11 -> `SIGSEGV`; null for a number this platform does not name. */
export function signalName(n: number): string | null {
  for (const [name, value] of Object.entries(BY_NAME)) if (value === n) return name;
  return null;
}

/** `SIGSEGV (signal 11)`, or the bare name when the platform has no number for it. */
export function describeSignal(name: string): string {
  const n = signalNumber(name);
  return n === null ? name : `${name} (signal ${n})`;
}
