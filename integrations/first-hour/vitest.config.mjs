// The registration docs/testing.md offers: setupFiles alone, no import in the test files.
import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { include: ['src/**/*.test.ts'], setupFiles: ['@verdict/testing/vitest'] } });
