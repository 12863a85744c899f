// Libraries most commands never call, loaded on first use rather than at
// startup: evaluating semver or yaml costs a short command (`byre dockerrun`)
// milliseconds it never gets back (adr/0041). `require` with a literal name
// is what keeps it synchronous and still bundled: bun's compiler turns it
// into a call that evaluates the bundled module the first time, and vitest
// gives every module a `require` too. Only CommonJS libraries belong here:
// requiring an ES module would load a second copy beside the imported one.

/* eslint-disable @typescript-eslint/no-require-imports -- the lazy load is the point (see above) */

let semver: typeof import('semver') | null = null;
let yaml: typeof import('yaml') | null = null;

export function semverLib(): typeof import('semver') {
  semver ??= require('semver') as typeof import('semver');
  return semver;
}

export function yamlLib(): typeof import('yaml') {
  yaml ??= require('yaml') as typeof import('yaml');
  return yaml;
}
