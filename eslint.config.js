// Lint: typescript-eslint with type information, and the import bans of
// adr/0009 and adr/0068. Host IO (the disk, child processes, sockets) is
// done in named places only: src/host/ (the safe file primitives) and
// src/engine/ (the engine adapter). Everywhere else in src/ those modules are
// refused, statically or through a lazy import()/require(). Pure modules
// (listed below) import no IO at all, the terminal's included; and
// production code never imports test support.
import tseslint from 'typescript-eslint';

/** The modules that reach the host: its files, its processes, its network. */
export const hostIoModules = [
  'node:fs',
  'node:fs/promises',
  'node:child_process',
  'node:net',
  'node:http',
  'node:https',
  'node:tls',
  'node:dgram',
  'fs',
  'fs/promises',
  'child_process',
  'net',
  'http',
  'https',
  'tls',
  'dgram',
  'execa',
  'proper-lockfile',
];
/** What a pure module may not import besides: the terminal. */
const terminalModules = ['ink', 'chalk'];

/** The places whose name says their files do host IO (adr/0068). */
export const HOST_IO_PLACES = ['src/host/**', 'src/engine/**'];

const testSupport = {
  group: ['**/test/**'],
  message: 'production code never imports test support',
};
const refuse = (names, message) => names.map((name) => ({ name, message }));
const hostIoPaths = refuse(
  hostIoModules,
  'host IO lives in src/host/ (the safe file primitives) or src/engine/ (adr/0068)',
);
const purePaths = refuse([...hostIoModules, ...terminalModules], 'pure folder: no IO here');

/** A lazy `import()` or `require()` of host IO, which the import ban cannot see. */
const lazyHostIo = ['ImportExpression', 'CallExpression[callee.name="require"]'].map((call) => ({
  selector: `${call} > Literal[value=/^(node:)?(fs|fs\\/promises|child_process|http|https|tls|dgram)$|^execa$/]`,
  message: 'host IO lives in src/host/ or src/engine/ (adr/0068)',
}));

/** One rule entry per file set: ESLint replaces, not merges, a rule's options. */
const restrictImports = (paths) => ['error', { paths, patterns: [testSupport] }];

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'src/generated/', 'coverage/'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ignores: ['**/*.test.ts', '**/*.test.tsx'],
    rules: {
      'no-restricted-imports': restrictImports(hostIoPaths),
      'no-restricted-syntax': ['error', ...lazyHostIo],
    },
  },
  {
    files: HOST_IO_PLACES,
    ignores: ['**/*.test.ts', '**/*.test.tsx'],
    rules: { 'no-restricted-imports': restrictImports([]), 'no-restricted-syntax': 'off' },
  },
  {
    // Every pure module: decisions over data, IO injected or left to callers.
    files: [
      'src/errors.ts',
      'src/config/!(read|write).ts',
      'src/config/rules/*.ts',
      'src/gen/**/*.ts',
      'src/tomldoc/**/*.ts',
      'src/status/**/*.ts',
      'src/skills/manifest/*.ts',
      'src/skills/{digest,materialize,resolve,set-rules,types}.ts',
      'src/project/{box-trees,identity,path-walk,store-layout,worktree-name}.ts',
      'src/engine/{argv,classify,docker-api-shape,engine,engine-scope,facts-key,http-reply,idle-engine,locality,output,types}.ts',
      'src/containment/granted-paths.ts',
      'src/session/{context,exit-status,run-params}.ts',
      'src/hostenv/resolve.ts',
      'src/output/{cell-width,escape,notes,redact,shell-quote}.ts',
      'src/cli/{completion,tree}.ts',
      'src/tui/model/**/*.ts',
      'src/transfer/{boxes-grammar,deliver-args,names,stage-plan,tar-entry,target}.ts',
      'src/transfer/remote/protocol.ts',
      'src/transfer/paste/**/*.ts',
      'src/transfer/clipboard/plan.ts',
      'src/transfer/app/!(install).ts',
      'src/credentials/!(input|box-delivery|edge-store).ts',
    ],
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-imports': restrictImports(purePaths) },
  },
  {
    // The edge's script is CommonJS: node builds its startup snapshot from
    // a script, not a module (adr/0078).
    files: ['src/gen/chassis/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
