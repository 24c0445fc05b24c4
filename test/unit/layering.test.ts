import { ESLint, type Linter } from 'eslint';

// The project's own rules, without type information (these rules need none), so each check takes milliseconds.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- jest loads CommonJS, and the config is CommonJS for that reason
const projectConfig = require('../../eslint.config.cjs') as Linter.Config[];
const eslint = new ESLint({
  overrideConfigFile: true,
  overrideConfig: [
    ...projectConfig,
    { languageOptions: { parserOptions: { projectService: false } }, rules: { '@typescript-eslint/no-floating-promises': 'off' } },
  ],
});

/** The errors the project's lint rules report for `code` placed at `file`. */
async function problems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: file });
  return result.messages.filter((message) => message.severity === 2).map((message) => message.message);
}

describe('the lint rules that keep the layout', () => {
  it('reject an import that runs the wrong way', async () => {
    expect(await problems('services/x.ts', "export { createApp } from '../api/app';\n")).toEqual([
      expect.stringContaining('services/ import only db/, lib/ and workflow contracts'),
    ]);
    expect(await problems('lib/x.ts', "export { headVersion } from '../db/repositories/versions';\n")).toEqual([expect.stringContaining('lib/ is the bottom layer')]);
    expect(await problems('workers/x.ts', "export { createApp } from '../api/app';\n")).toEqual([expect.stringContaining('never import api/')]);
    expect(await problems('api/routes/x.ts', "export { createIngestActivities } from '../../activities/ingest';\n")).toEqual([
      expect.stringContaining('never reaches activities or workers'),
    ]);
    expect(await problems('workflows/x.ts', "export { headVersion } from '../db/repositories/versions';\n")).toEqual([
      expect.stringContaining('Workflows import only'),
    ]);
    expect(await problems('services/x.ts', "export { headVersion } from '../db/repositories/versions';\n")).toEqual([]);
  });

  it('let api/ import only types from db/ (and the errors its error mapper maps)', async () => {
    expect(await problems('api/routes/x.ts', "import { listTags } from '../../db/repositories/tags';\nexport const list = listTags;\n")).toEqual([
      expect.stringContaining('import only types from db/'),
    ]);
    expect(await problems('api/routes/x.ts', "import type { TagRow } from '../../db/repositories/tags';\nexport type T = TagRow;\n")).toEqual([]);
    expect(await problems('api/middleware/x.ts', "import { NotFoundError } from '../../db/errors';\nexport const E = NotFoundError;\n")).toEqual([]);
  });

  it('let activities/ reach repositories only through services (types are fine)', async () => {
    expect(await problems('activities/x.ts', "import { headVersion } from '../db/repositories/versions';\nexport const head = headVersion;\n")).toEqual([
      expect.stringContaining('activities/ call services'),
    ]);
    expect(await problems('activities/x.ts', "import type { DatasetVersion } from '../db/repositories/versions';\nexport type V = DatasetVersion;\n")).toEqual([]);
    expect(await problems('activities/x.ts', "import { headVersion } from '../services/versions';\nexport const head = headVersion;\n")).toEqual([]);
  });

  it('let other layers import only the contracts of workflows', async () => {
    expect(await problems('services/x.ts', "export { datasetCreationWorkflow } from '../workflows/datasetCreation';\n")).toEqual([
      expect.stringContaining('workflows/contracts only'),
    ]);
    expect(await problems('services/x.ts', "export { creationPhaseQuery } from '../workflows/contracts';\n")).toEqual([]);
  });

  it('reject SQL outside db/: knex imports and query building', async () => {
    expect(await problems('activities/x.ts', "import type { Knex } from 'knex';\nexport type T = Knex;\n")).toEqual([
      expect.stringContaining('All SQL lives in db/'),
    ]);
    const query = "import type { Db } from '../db/connection';\nexport const rows = (db: Db) => db('media').select('id');\n";
    expect(await problems('services/x.ts', query)).toEqual([expect.stringContaining('All SQL lives in db/')]);
    expect(await problems('activities/x.ts', query.replace('(db: Db) => db(', '(deps: { db: Db }) => deps.db('))).toEqual([
      expect.stringContaining('All SQL lives in db/'),
    ]);
    expect(await problems('db/repositories/x.ts', query.replace("'../db/connection'", "'../connection'"))).toEqual([]);
  });
});
