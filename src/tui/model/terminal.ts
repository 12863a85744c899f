// What a screen may draw on this terminal, from its environment. Pure.

/** Colour unless the terminal is dumb or NO_COLOR is set (to anything but empty). */
export function colorWanted(env: Readonly<Record<string, string | undefined>>): boolean {
  return env['TERM'] !== 'dumb' && (env['NO_COLOR'] ?? '') === '';
}
