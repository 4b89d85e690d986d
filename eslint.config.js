import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Code that reads JSON it asserts on (tests, the test kit): an `any` read there is the point. */
const TEST_CODE = ['packages/*/test/**/*.ts', 'packages/testkit/src/**/*.ts', 'test/**/*.ts'];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'data/**', 'bench/results/**', 'coverage/**', 'release/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly' },
      // Each package's tsconfig.json owns its src/; the root tsconfig.json owns the tests.
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Drivers implement async ports with synchronous bodies (the memory drivers); an `async`
      // without `await` there is the contract, not a mistake.
      '@typescript-eslint/require-await': 'off',
      // Deps and ports are bags of functions passed around by design (`const { readFile } = deps.fs`);
      // none of them uses `this`.
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    files: TEST_CODE,
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  { files: ['**/*.js', '**/*.mjs', '**/*.cjs'], ...tseslint.configs.disableTypeChecked },
);
