import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import fileNames from './tools/eslint/file-names.js';
import layers from './tools/eslint/layers.js';
import routePaths from './tools/eslint/route-paths.js';
import stepImports from './tools/eslint/step-imports.js';
import tableOwners from './tools/eslint/table-owners.js';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'data/**', '.test-data/**', 'bench/results/**', 'test-results/**', 'playwright-report/**', 'apps/server/drizzle/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node }, ecmaVersion: 2024, sourceType: 'module' },
    plugins: { storefront: { rules: { ...layers.rules, ...fileNames.rules, ...routePaths.rules, ...tableOwners.rules, ...stepImports.rules } } },
    rules: {
      'storefront/layers': 'error',
      'storefront/services-own-the-database': 'error',
      'storefront/areas-own-their-tables': 'error',
      'storefront/payments-imports-no-flow': 'error',
      'storefront/file-names': 'error',
      'storefront/route-paths': 'error',
      'storefront/step-imports-one-area': 'error',
      'no-console': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      eqeqeq: ['error', 'always'],
    },
  },
  {
    // Files short enough to read in one sitting (STYLE.md rule 9, issue 34): split by what they do.
    files: ['**/*.{ts,tsx,js,mjs,cjs}'],
    ignores: ['**/*.test.{ts,tsx}', 'apps/server/test/**', 'e2e/**'],
    rules: { 'max-lines': ['error', { max: 450 }] },
  },
  {
    files: ['apps/web/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: { ...reactHooks.configs.recommended.rules },
  },
  {
    // react-toastify loads with the first toast (lib/toast.ts); a static import would put it in every first load.
    files: ['apps/web/**/*.{ts,tsx}'],
    ignores: ['apps/web/src/app/toast-host.tsx'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'react-toastify', message: "Use toast from 'lib/toast.ts': it loads react-toastify when first needed." }] }],
    },
  },
  {
    // The contracts hold zod schemas: the web takes only their types (decisions 016 and 025).
    files: ['apps/web/**/*.{ts,tsx}'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@storefront/domain/contracts/*'],
              allowTypeImports: true,
              message: 'The web imports the contracts with `import type` only: their zod schemas must not reach the browser (decision 025).',
            },
          ],
        },
      ],
    },
  },
);
