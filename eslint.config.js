// Lint: typescript-eslint with type information, plus the two import bans of
// adr/0009: pure modules (listed below) import no IO modules, and production
// code never imports test support (test/support/).
import tseslint from 'typescript-eslint';

const ioModules = ['node:fs', 'node:fs/promises', 'node:child_process', 'execa', 'ink', 'chalk'];
const ioPaths = ioModules.map((name) => ({ name, message: 'pure folder: no IO here' }));
const testSupport = {
  group: ['**/test/**'],
  message: 'production code never imports test support',
};

/** One rule entry per file set: ESLint replaces, not merges, a rule's options. */
const restrictImports = (pure) => [
  'error',
  { paths: pure ? ioPaths : [], patterns: [testSupport] },
];

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
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-imports': restrictImports(false) },
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
      'src/engine/{argv,classify,docker-api-shape,engine,facts-key,http-reply,locality,output,types}.ts',
      'src/box/{banner,engine-scope,granted-paths,idle-engine,worktree-helper}.ts',
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
      'src/credentials/!(input|box-delivery).ts',
    ],
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-imports': restrictImports(true) },
  },
);
