import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // One real PostgreSQL for the whole run (test/helpers/postgres-global.ts).
    globalSetup: ['test/helpers/postgres-global.ts'],
  },
});
