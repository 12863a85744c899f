import { defineConfig } from 'vitest/config';

// Four tiers: unit tests sit next to the code; the cli tier drives the built
// binary without an engine (test/cli/); the tui tier drives screens in a
// private tmux server (test/tui/); the engine tier drives the binary against
// real Docker and Podman (test/engine/).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          // Generous: under `npm test` this tier shares the cores with the
          // engine lanes at a lower priority (adr/0060). No test asserts a time.
          testTimeout: 60_000,
          include: ['src/**/*.test.ts', 'scripts/**/*.test.{ts,mjs}', 'bench/**/*.test.mjs'],
          globalSetup: ['test/unit-setup.ts'],
        },
      },
      {
        test: {
          name: 'cli',
          testTimeout: 60_000,
          include: ['test/cli/**/*.test.ts'],
          globalSetup: ['test/cli/global-setup.ts'],
        },
      },
      {
        test: {
          name: 'tui',
          include: ['test/tui/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'engine',
          include: ['test/engine/**/*.test.ts'],
          testTimeout: 600_000,
          hookTimeout: 600_000,
          fileParallelism: false,
          globalSetup: ['test/engine/global-setup.ts'],
          setupFiles: ['test/engine/lane-setup.ts'],
        },
      },
    ],
  },
});
