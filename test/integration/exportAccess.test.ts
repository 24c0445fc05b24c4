import { addDatasetMember, createDataset } from '../../db/repositories/datasets';
import { createUser } from '../../db/repositories/users';
import { Organization, Workspace } from '../../db/models';
import { eventually } from '../support/media';
import { startTestStack } from '../support/testStack';
import { downloadExport } from '../support/exportArchives';
import { readZip } from '../support/zip';
import { loginCookie } from '../support/sessions';

type Stack = Awaited<ReturnType<typeof startTestStack>>;

const password = 'correct horse battery';

/** Who may export (editors and up), with authentication on: viewers get 403, strangers 404, nobody 401. */
describe('export access', () => {
  let stack: Stack;
  let workspaceId: string;
  let datasetId: string;
  const cookies: Record<string, string> = {};

  beforeAll(async () => {
    stack = await startTestStack({ DISABLE_AUTH: 'false', ADMIN_PASSWORD: password });
    const { db } = stack.deps;
    workspaceId = (await Workspace.query(db).first())!.id;
    const alice = await createUser(db, { email: 'alice@example.com', password, workspaceId, workspaceRole: 'editor' });
    const bob = await createUser(db, { email: 'bob@example.com', password, workspaceId, workspaceRole: 'viewer' });
    await createUser(db, { email: 'dave@example.com', password, workspaceId, workspaceRole: 'viewer' });
    const elsewhere = await Workspace.query(db).insertAndFetch({ organization_id: (await Organization.query(db).insertAndFetch({ name: 'elsewhere' })).id, name: 'elsewhere' });
    await createUser(db, { email: 'carol@example.com', password, workspaceId: elsewhere.id, workspaceRole: 'admin' });
    datasetId = (await createDataset(db, { name: 'empty but ready', ownerId: alice.id, workspaceId, status: 'READY' })).id;
    await addDatasetMember(db, datasetId, bob.id, 'viewer');
    for (const name of ['alice', 'bob', 'carol', 'dave']) {
      cookies[name] = await loginCookie(stack, `${name}@example.com`, password);
    }
  });
  afterAll(() => stack.close());

  const calls = (id: string) => ({
    context: () => stack.request.get(`/api/v1/dataset/${id}/export_context_async`).query({ file_name: 'x', export_format: 'json' }),
    entities: () =>
      stack.request
        .post(`/api/v1/dataset/${id}/export_entities_async`)
        .query({ export_format: 'json' })
        .send({ media_selection: [{ type: 'media', payload: { media_ids: ['0b6b1b9e-5d0c-4c3e-9d6f-2f4f0f1a2b3c'] } }] }),
    status: () => stack.request.get(`/api/v1/dataset/${id}/export_status`).query({ export_task_id: '0b6b1b9e-5d0c-4c3e-9d6f-2f4f0f1a2b3c' }),
  });

  it('refuses a viewer (403), a colleague without a role (403), a stranger (404) and no session (401), starting nothing', async () => {
    for (const call of Object.values(calls(datasetId))) {
      expect((await call().set('Cookie', cookies.bob).expect(403)).body).toEqual({ detail: 'This operation needs editor access to the dataset; you have viewer' });
      expect((await call().set('Cookie', cookies.dave).expect(403)).body).toEqual({ detail: 'You do not have permission to access this dataset' });
      expect((await call().set('Cookie', cookies.carol).expect(404)).body).toEqual({ detail: 'Dataset not found' });
      await call().expect(401);
    }
    expect(await stack.deps.db('tasks').where({ dataset_id: datasetId }).count({ n: '*' }).first()).toEqual({ n: '0' });
  });

  it('lists the export formats to anyone signed in, viewers too, and to nobody else', async () => {
    const listed = (await stack.request.get('/api/v1/export-formats').set('Cookie', cookies.bob).expect(200)).body;
    expect(listed.map((format: { name: string }) => format.name)).toEqual(['json', 'parquet', 'coco', 'yolo', 'hf', 'imagefolder']);
    expect(listed[0]).toEqual({ name: 'json', title: 'JSON', description: 'metadata.json', metadata_file: 'metadata.json', always_includes_images: false, needs_label_field: false });
    expect(listed.filter((format: { always_includes_images: boolean }) => format.always_includes_images).map((format: { name: string }) => format.name)).toEqual(['yolo', 'hf', 'imagefolder']);
    expect(listed.filter((format: { needs_label_field: boolean }) => format.needs_label_field).map((format: { name: string }) => format.name)).toEqual(['imagefolder']);
    expect((await stack.request.get('/api/v1/export-formats').expect(401)).body).toHaveProperty('detail');
    expect((await stack.request.post('/api/v1/export-formats').set('Cookie', cookies.bob).expect(405)).body).toEqual({ detail: 'Method Not Allowed' });
  });

  it('lets an editor export (an empty dataset gives an empty metadata file) and the link alone download it', async () => {
    const { id } = (await calls(datasetId).context().set('Cookie', cookies.alice).expect(200)).body;
    const status = await eventually(
      async () => (await stack.request.get(`/api/v1/dataset/${datasetId}/export_status`).query({ export_task_id: id }).set('Cookie', cookies.alice).expect(200)).body,
      (body) => ['COMPLETED', 'FAILED'].includes(body.status),
      60_000,
      'the export',
    );
    expect(status).toMatchObject({ status: 'COMPLETED', error_message: null });
    // A viewer may not even ask where an editor's export stands.
    await stack.request.get(`/api/v1/dataset/${datasetId}/export_status`).query({ export_task_id: id }).set('Cookie', cookies.bob).expect(403);
    const zip = await downloadExport(stack, status.download_uri).expect(200);
    const entries = await readZip(zip.body);
    expect(JSON.parse(entries.get('metadata.json')!.toString('utf8'))).toEqual([]);
  });

  it('refuses an editor on a dataset that is not READY (409)', async () => {
    const { db } = stack.deps;
    const alice = await db('users').where({ email: 'alice@example.com' }).first();
    const indexing = (await createDataset(db, { name: 'indexing', ownerId: alice.id, workspaceId, status: 'INDEXING' })).id;
    expect((await calls(indexing).context().set('Cookie', cookies.alice).expect(409)).body).toEqual({ detail: 'Dataset is not READY (status INDEXING)' });
    expect((await calls(indexing).entities().set('Cookie', cookies.alice).expect(409)).body).toEqual({ detail: 'Dataset is not READY (status INDEXING)' });
  });
});
