import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Tests run against package sources, never behind a build step.
    conditions: ['@verdict/source'],
  },
  ssr: {
    resolve: { conditions: ['@verdict/source'], externalConditions: ['@verdict/source'] },
  },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts', 'examples/*/test/**/*.test.ts', 'site/test/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    typecheck: {
      enabled: true,
      include: ['packages/*/test/**/*.test-d.ts'],
      tsconfig: 'tsconfig.typecheck.json',
    },
  },
});
