// Lint with the types: typescript-eslint's type-checked rules over the product, the contract, the
// emulator, the tests and the tools (fixtures are data: broken models on purpose). Formatting is prettier's job (npm run format).
// `lintConfig(typed)`: the same rules over given TypeScript programs (scripts/check-types.mjs: tsc and eslint over one).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const PROJECT_SERVICE = { projectService: true, tsconfigRootDir: import.meta.dirname };

/** The config; `typed` is how the type-aware rules get their types (the project service, or `{ programs }`). */
export const lintConfig = (typed = PROJECT_SERVICE) =>
  tseslint.config(
    {
      ignores: [
        'dist/',
        'packages/emulator/dist/',
        'node_modules/',
        'coverage/',
        '.tmp/',
        'bench/out/',
        'packages/platform-api/src/generated/',
        'test/fixtures/',
      ],
    },
    js.configs.recommended,
    ...tseslint.configs.recommendedTypeChecked,
    {
      languageOptions: {
        parserOptions: typed,
        globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' },
      },
      rules: {
        // A thrown non-Error would let a step pass where a catch expects an Error (STYLE.md, traps).
        '@typescript-eslint/only-throw-error': 'error',
        '@typescript-eslint/no-floating-promises': 'error',
        '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      },
    },
    {
      // Tests read arbitrary JSON (answers, reports, fixtures) and poke at it: the `any` rules would only add casts.
      files: ['test/**', 'bench/**'],
      rules: {
        '@typescript-eslint/no-unsafe-assignment': 'off',
        '@typescript-eslint/no-unsafe-member-access': 'off',
        '@typescript-eslint/no-unsafe-argument': 'off',
        '@typescript-eslint/no-unsafe-return': 'off',
        '@typescript-eslint/no-unsafe-call': 'off',
        '@typescript-eslint/no-explicit-any': 'off',
      },
    },
    {
      files: ['**/*.mjs', '**/*.js'],
      ...tseslint.configs.disableTypeChecked,
      // Plain JavaScript is in no program: it gets no types whichever way the TypeScript files get theirs.
      languageOptions: { parserOptions: { ...tseslint.configs.disableTypeChecked.languageOptions?.parserOptions, programs: null } },
    },
  );

export default lintConfig();
