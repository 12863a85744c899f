// Lint: typescript-eslint with type information, plus the folder boundaries
// from style.md: pure folders import no IO modules.
import tseslint from 'typescript-eslint';

const ioModules = ['node:fs', 'node:fs/promises', 'node:child_process', 'execa', 'ink', 'chalk'];

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
    files: [
      'src/gen/**/*.ts',
      'src/status/**/*.ts',
      'src/network/egress.ts',
      'src/tui/model/**/*.ts',
      'src/transfer/paste/**/*.ts',
      'src/transfer/clipboard/plan.ts',
      'src/transfer/app/!(install).ts',
      'src/credentials/!(input|deliver).ts',
    ],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: ioModules.map((name) => ({ name, message: 'pure folder: no IO here' })) },
      ],
    },
  },
);
