import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'server/**/*.test.ts', 'client/**/*.test.ts'],
    exclude: [...configDefaults.exclude],
    testTimeout: 30_000,
  },
});
