import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { TASK_TYPES, TASKS, STAGE_RANGES, taskOf, type TaskType } from '../../lib/tasks';

const root = path.join(__dirname, '..', '..');
const tasksDir = path.join(root, 'lib', 'tasks');
/** The files of lib/tasks that declare no task type. */
const SHARED_FILES = ['defineTask.ts', 'index.ts', 'indexingStages.ts'];

/** DATASET_CREATION → datasetCreation, the module's file name. */
const moduleName = (type: string) => type.toLowerCase().replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

/** Every task type a migration seeded into task_types (each such migration exports SEEDED_TASK_TYPES). */
function seededTaskTypes(): string[] {
  const dir = path.join(root, 'db', 'migrations');
  return fs
    .readdirSync(dir)
    .filter((file) => file.endsWith('.ts') && fs.readFileSync(path.join(dir, file), 'utf8').includes('SEEDED_TASK_TYPES'))
    .flatMap((file) => (jest.requireActual(path.join(dir, file)) as { SEEDED_TASK_TYPES: string[] }).SEEDED_TASK_TYPES);
}

const BACKEND_DIRS = ['api', 'services', 'activities', 'workflows', 'workers', 'lib', 'db'];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return full.endsWith(path.join('db', 'migrations')) ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/**
 * The names a file's code refers to a task type by: a string literal that is the name, or the name as a property
 * (a key, `.NAME`). Comments and prose in longer strings do not count, nor an unrelated variable of that name.
 */
function codeReferences(file: string): Set<string> {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) names.add(node.text);
    else if ((ts.isPropertyAssignment(node) || ts.isPropertySignature(node)) && ts.isIdentifier(node.name)) names.add(node.name.text);
    else if (ts.isPropertyAccessExpression(node)) names.add(node.name.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return names;
}

describe('task types: one module each', () => {
  it('declares every task type in its own module of lib/tasks, and every module there is registered', () => {
    for (const type of TASK_TYPES) {
      const file = path.join(tasksDir, `${moduleName(type)}.ts`);
      expect({ type, module: fs.existsSync(file) }).toEqual({ type, module: true });
      const exported = Object.values(jest.requireActual(file) as Record<string, { type?: string }>);
      expect(exported.map((value) => value.type)).toContain(type);
    }
    const modules = fs.readdirSync(tasksDir).filter((file) => !SHARED_FILES.includes(file));
    expect(modules.sort()).toEqual(TASK_TYPES.map((type) => `${moduleName(type)}.ts`).sort());
  });

  it('seeds into task_types exactly the task types that have a module', () => {
    const seeded = seededTaskTypes();
    expect(new Set(seeded).size).toBe(seeded.length);
    expect([...seeded].sort()).toEqual([...TASK_TYPES].sort());
  });

  it('gives each operation, workflow and stage to one task, a stage the same share wherever it appears', () => {
    const operations = TASKS.map((task) => task.operation.name);
    expect(new Set(operations).size).toBe(operations.length);
    const workflows = TASKS.map((task) => task.workflow);
    expect(new Set(workflows).size).toBe(workflows.length);
    for (const task of TASKS) {
      for (const [stage, range] of Object.entries(task.stages)) {
        expect({ stage, range }).toEqual({ stage, range: STAGE_RANGES[stage as keyof typeof STAGE_RANGES] });
        expect(0 <= range[0] && range[0] < range[1] && range[1] <= 100).toBe(true);
      }
    }
  });

  it('names each task type in at most 3 backend files outside tests and migrations (its module, its workflow, its service)', () => {
    const files = BACKEND_DIRS.flatMap((dir) => sourceFiles(path.join(root, dir)));
    const references = new Map(files.map((file) => [path.relative(root, file), codeReferences(file)]));
    const naming = (type: string) => [...references].filter(([, names]) => names.has(type)).map(([file]) => file);
    const spread = Object.fromEntries(TASK_TYPES.map((type) => [type, naming(type)]).filter(([, files]) => files.length > 3));
    expect(spread).toEqual({});
  });
});

describe('how each task ends unfinished', () => {
  const ref = { taskId: 't1', datasetId: 'd1' };
  const failed = { aborted: false, message: 'disk full' };
  const end = <T extends TaskType>(type: T, input: Parameters<ReturnType<typeof taskOf<T>>['endsUnfinished']>[0]) =>
    (taskOf(type).endsUnfinished as (input: unknown, ending: typeof failed) => unknown)(input, failed);

  it('gives a claimed dataset back the status it was claimed from (an import, a propagation, a label check)', () => {
    for (const type of ['CUSTOM_METADATA', 'LABEL_PROPAGATION', 'LABEL_QUALITY'] as const) {
      expect(end(type, { ...ref, previousStatus: 'PARTIAL INDEX' })).toEqual([
        { kind: 'dataset', datasetId: 'd1', transition: { from: ['READ ONLY'], to: 'PARTIAL INDEX' } },
      ]);
    }
  });

  it('ends a batch as a batch: media addition to its claimed status, a reindex (its own batch) to PARTIAL INDEX', () => {
    expect(end('MEDIA_ADDITION', { ...ref, batchId: 'b1', previousStatus: 'READY' })).toEqual([
      { kind: 'batch', datasetId: 'd1', batchId: 'b1', previousStatus: 'READY' },
    ]);
    expect(end('REINDEX', ref)).toEqual([{ kind: 'batch', datasetId: 'd1', batchId: 't1', previousStatus: 'PARTIAL INDEX' }]);
  });

  it('leaves a new dataset ERROR with the reason (creation, clone), an enrichment its source back', () => {
    const error = { kind: 'dataset', datasetId: 'd1', transition: { from: ['INDEXING'], to: 'ERROR' }, errorMessage: 'disk full' };
    expect(end('DATASET_CREATION', ref)).toEqual([{ ...error, transition: { from: ['INDEXING', 'UPLOADING'], to: 'ERROR' } }]);
    expect(end('SNAPSHOT_CLONE', ref)).toEqual([error]);
    expect(end('ENRICHMENT', { ...ref, sourceDatasetId: 's1', sourcePreviousStatus: 'READY' })).toEqual([
      error,
      { kind: 'dataset', datasetId: 's1', transition: { from: ['READ ONLY'], to: 'READY' } },
    ]);
  });

  it('undoes a restore, and ends an export alone', () => {
    expect(end('SNAPSHOT_RESTORE', { ...ref, snapshotId: 's1', previousStatus: 'READY' })).toEqual([
      { kind: 'dataset', datasetId: 'd1', transition: { from: ['READ ONLY'], to: 'READY' } },
      { kind: 'restore', datasetId: 'd1', snapshotId: 's1' },
    ]);
    expect(end('EXPORT', ref)).toEqual([]);
  });
});
