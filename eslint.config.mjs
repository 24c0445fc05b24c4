import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.data/', '.tools/', 'coverage/', '**/*.js', '*.mjs'] },
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Workflow code must stay deterministic: no Node built-ins, no value imports from our side-effect folders.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: builtinModules.flatMap((name) => [name, `node:${name}`]),
          patterns: [
            { group: ['**/activities/**', '**/lib/**', '**/db/**', '**/api/**'], allowTypeImports: true,
              message: 'Workflows import only @temporalio/workflow and activity types.' },
          ],
        },
      ],
    },
  },
);
