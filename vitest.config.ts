import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // State and cache folders in one temp folder per run; one real PostgreSQL for the whole run.
    globalSetup: ['test/helpers/state-global.ts', 'test/helpers/postgres-global.ts'],
  },
});
