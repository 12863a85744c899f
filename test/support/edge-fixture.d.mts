// Types of edge-fixture.mjs (the fixture HTTPS server and its CA).

/**
 * Writes into `dir` the fixture's own CA (its key removed once it signed),
 * a leaf for `names`, and `server.mjs`; returns the CA's PEM.
 */
export function fixtureCerts(dir: string, names: readonly string[]): string;
