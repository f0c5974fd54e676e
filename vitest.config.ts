import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // Race tests start dozens of real processes; two workers keep a 2-core machine honest.
    maxWorkers: 2,
    pool: 'forks',
    globalSetup: ['test/harness/global-setup.ts'],
  },
});
