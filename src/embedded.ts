// Read access to the files embedded at build time (bundled skills, templates,
// chassis scripts). The running binary never reads these from a checkout.

import { COMMIT, EMBEDDED, VERSION } from './generated/embedded.js';

export { VERSION };

/** What `byre version` prints: the version, the commit it was built from, and this platform. */
export function versionLine(): string {
  return `byre ${VERSION} (commit ${COMMIT}, ${process.platform}-${process.arch})`;
}

/** The bytes of an embedded file, by repo-relative path; null when absent. */
export function embeddedBytes(path: string): Uint8Array | null {
  const entry = EMBEDDED[path];
  return entry ? Buffer.from(entry.data, 'base64') : null;
}

/** An embedded file as UTF-8 text; null when absent. */
export function embeddedText(path: string): string | null {
  const bytes = embeddedBytes(path);
  return bytes ? Buffer.from(bytes).toString('utf8') : null;
}

/** Whether an embedded file is executable (0755 in the checkout). */
export function embeddedIsExecutable(path: string): boolean {
  return (EMBEDDED[path]?.mode ?? 0) === 0o755;
}

/** Embedded paths under a prefix (`templates/`), sorted. */
export function embeddedPaths(prefix: string): string[] {
  return Object.keys(EMBEDDED)
    .filter((p) => p.startsWith(prefix))
    .sort();
}
