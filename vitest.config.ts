import { resolve, dirname } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BUNDLE_IMPORT, bundleModule, entryOf } from './scripts/page-bundle.mjs';

export default defineConfig({
  plugins: [
    {
      // `import page from './client/NAME.bundle'`, as the build resolves it (scripts/build.mjs).
      name: 'page-bundle',
      enforce: 'pre',
      resolveId(source: string, importer: string | undefined) {
        if (!BUNDLE_IMPORT.test(source) || !importer) return undefined;
        return `\0page-bundle:${resolve(dirname(importer), entryOf(source))}`;
      },
      load(id: string) {
        return id.startsWith('\0page-bundle:') ? bundleModule(id.slice('\0page-bundle:'.length)) : undefined;
      },
    },
  ],
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // State and cache folders in one temp folder per run; one real PostgreSQL for the whole run.
    globalSetup: ['test/helpers/state-global.ts', 'test/helpers/postgres-global.ts'],
    setupFiles: ['test/helpers/secrets-per-test.ts'],
  },
});
