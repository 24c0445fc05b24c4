const tseslint = require('typescript-eslint');
const importX = require('eslint-plugin-import-x');
const { builtinModules } = require('node:module');

/** Folders of the layout (ARCHITECTURE.md); imports run downward only. */
const upward = (names, message) => ({ regex: `^(\\.\\.?/)+(${names.join('|')})(/|$)`, message });
// Outside workflows/, only the contracts module (inputs, queries, task queues) of a workflow may be imported.
const workflowInternals = {
  regex: '^(\\.\\.?/)+workflows(/(?!contracts$)|$)',
  message: 'Import workflow inputs, queries and task queues from workflows/contracts only.',
};
const knexOutsideDb = { regex: '^(knex|objection)(/|$)', message: 'All SQL lives in db/: call a repository instead.' };

// Queries are built only in db/: no `db('table')`, `trx('table')` or `deps.db('table')` elsewhere.
const queryBuilding = [
  { selector: "CallExpression[callee.type='Identifier'][callee.name=/^(db|trx|knex)$/]", message: 'All SQL lives in db/: call a repository instead.' },
  { selector: "CallExpression[callee.type='MemberExpression'][callee.property.name='db']", message: 'All SQL lives in db/: call a repository instead.' },
  // An objection model's query builder (`User.query(trx)`) is SQL too.
  { selector: "CallExpression[callee.type='MemberExpression'][callee.property.name=/^(query|relatedQuery)$/][callee.object.name=/^[A-Z]/]", message: 'All SQL lives in db/: call a repository instead.' },
];

// api/ reaches the database only through services: types from db/ are fine, values are not (db/errors: the error mapper's objection errors).
const dbValuesInApi = {
  regex: '^(\\.\\.?/)+db(/(?!errors$)|$)',
  allowTypeImports: true,
  message: 'api/ calls services: import only types from db/.',
};

// Activities adapt services to Temporal: the repositories are their services' to call (types are fine).
const repositoriesInActivities = {
  regex: '^(\\.\\.?/)+db/repositories(/|$)',
  allowTypeImports: true,
  message: 'activities/ call services: the service an activity adapts calls the repositories.',
};

function layer(files, patterns, { buildsQueries = false, ignores } = {}) {
  const rules = { 'no-restricted-imports': ['error', { patterns }] };
  if (!buildsQueries) rules['no-restricted-syntax'] = ['error', ...queryBuilding];
  return { files, ...(ignores ? { ignores } : {}), rules };
}

module.exports = tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.data/', '.tools/', 'coverage/', 'web/node_modules/', 'web/dist/', '**/*.js', '*.mjs', '*.cjs'] },
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: __dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Modules import each other one way: a circle means one of them holds what belongs to a third.
    files: ['**/*.ts', '**/*.tsx'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [importX.createNodeResolver({ extensions: ['.ts', '.tsx', '.js'] })],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/extensions': ['.ts', '.tsx', '.js'],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  layer(['lib/**/*.ts'], [
    upward(['api', 'services', 'db', 'activities', 'workflows', 'workers'], 'lib/ is the bottom layer: it imports nothing of ours above it.'),
    knexOutsideDb,
  ]),
  layer(['db/**/*.ts'], [upward(['api', 'services', 'activities', 'workflows', 'workers'], 'db/ imports only lib/.')], { buildsQueries: true }),
  layer(['services/**/*.ts'], [upward(['api', 'activities', 'workers'], 'services/ import only db/, lib/ and workflow contracts.'), workflowInternals, knexOutsideDb]),
  layer(['activities/**/*.ts'], [
    upward(['api', 'workers'], 'activities/ import only services/, db/, lib/ and workflow contracts.'),
    workflowInternals,
    knexOutsideDb,
    repositoriesInActivities,
  ]),
  {
    // Web components stay free of URLs (STYLE.md, Web): a feature's api.ts calls the API, its components call that.
    files: ['web/src/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '(^|/)api/(client|upload)$', importNames: ['api', 'postForm'], message: "Call the API from the feature's api.ts." }] },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'fetch', message: "Call the API from the feature's api.ts." },
        { name: 'EventSource', message: "Open streams from the feature's api.ts." },
        { name: 'XMLHttpRequest', message: "Send from the feature's api.ts." },
      ],
    },
  },
  // Activities adapt services to Temporal: what must change together (a commit, a task's end) is a service's transaction.
  {
    files: ['activities/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...queryBuilding,
        { selector: "CallExpression[callee.property.name='transaction']", message: 'Transactions belong to services/: call a service function from the activity.' },
      ],
    },
  },
  layer(['api/**/*.ts'], [upward(['activities', 'workers'], 'api/ calls services; it never reaches activities or workers.'), workflowInternals, knexOutsideDb, dbValuesInApi], {
    ignores: ['api/server.ts'],
  }),
  // The API process's assembly (connections, migrations, the default tenant), as workers/ assemble the worker.
  layer(['api/server.ts'], [upward(['activities', 'workers'], 'api/ calls services; it never reaches activities or workers.'), workflowInternals, knexOutsideDb]),
  layer(['workers/**/*.ts'], [upward(['api'], 'workers/ assemble workflows and activities; they never import api/.'), knexOutsideDb]),
  {
    // Workflow code must stay deterministic: no Node built-ins, no value imports from our side-effect folders.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: builtinModules.flatMap((name) => [name, `node:${name}`]),
          patterns: [
            { group: ['**/activities/**', '**/lib/**', '**/db/**', '**/api/**', '**/services/**'], allowTypeImports: true,
              message: 'Workflows import only @temporalio/workflow and activity types.' },
          ],
        },
      ],
    },
  },
);
