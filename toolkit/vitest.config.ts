import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The package's own tests: unit tests beside src/, the rest in test/. template/ holds a new
 * project's files (its tests run in the projects test/new-project/ makes); test/fixtures/ is data.
 */
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, 'template/**', 'test/fixtures/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
