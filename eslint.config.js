// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = builtinModules.filter((name) => !name.startsWith('_'));

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/coverage/**', '**/*.d.ts', 'test/.docs-run/**', 'site/.vitepress/cache/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        console: 'readonly', process: 'readonly', Buffer: 'readonly', URL: 'readonly',
        setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly',
        TextEncoder: 'readonly', TextDecoder: 'readonly', Request: 'readonly', Response: 'readonly',
        Headers: 'readonly', fetch: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly',
        structuredClone: 'readonly', performance: 'readonly', queueMicrotask: 'readonly', btoa: 'readonly', atob: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.object.name=/^(it|test|describe)$/][callee.property.name=/^(only|skip|todo)$/]", message: 'no focused or skipped tests' },
      ],
    },
  },
  {
    // CommonJS consumers of the built packages check that require() works.
    files: ['integrations/**/*.cjs', 'integrations/**/*.cts'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Library code never prints; the CLI writes through its own output module.
    files: ['packages/*/src/**/*.ts'],
    ignores: ['packages/cli/src/**'],
    rules: { 'no-console': 'error', 'max-params': ['error', 4] },
  },
  {
    // The core runs in browsers, workers and edge runtimes: no Node built-ins.
    files: ['packages/core/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: '@verdict/core must not import Node built-ins' })),
          patterns: [{ group: ['node:*'], message: '@verdict/core must not import Node built-ins' }],
        },
      ],
      'no-restricted-globals': ['error', 'process', 'Buffer', 'require', '__dirname', '__filename'],
    },
  },
  {
    // Adapters and tools use only the public entry points of @verdict/core (so third-party adapters can too).
    files: ['packages/{kubernetes,ci,spinnaker,testing,cli}/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@verdict/*/src/*', '@verdict/*/src', '../../*/src/*', '../../core/*'], message: 'import @verdict/* packages by their public entry points only' },
          ],
        },
      ],
    },
  },
);
