import { headVersionId } from '../support/versions';
import { randomUUID } from 'node:crypto';
import { createViewMonitoringActivities } from '../../activities/viewMonitoring';
import { createDataset } from '../../db/repositories/datasets';
import { insertTask } from '../../db/repositories/tasks';
import { Workspace } from '../../db/models';
import { captionCollection } from '../../lib/vectors/vectorStore';
import { startTestApi, type TestApi } from '../support/testStack';

/**
 * The semantic side of view monitoring, on real Postgres, the embedded vector store and the real
 * text encoder: batches through add_media have no captions until captioning enrichment exists, so
 * this drives the activity directly on a batch whose captions are embedded.
 */
describe('saved-view monitoring of caption searches', () => {
  let api: TestApi;
  let datasetId: string;

  beforeAll(async () => {
    api = await startTestApi();
    const workspaceId = (await Workspace.query(api.deps.db).first())!.id;
    // READY while the views are saved (a view is refused while a task holds the dataset), READ ONLY once the batch runs.
    datasetId = (await createDataset(api.deps.db, { name: 'captioned', ownerId: api.deps.defaultUser.id, workspaceId, status: 'READY' })).id;
  });
  afterAll(() => api.close());

  it('counts batch media whose captions are near the view text, ANDed with its other filters, once per batch', async () => {
    const { db, vectors } = api.deps;
    const textEncoder = await api.deps.textEncoder();
    const views = `/api/v1/dataset/${datasetId}/views`;
    const cats = (await api.request.post(views).query({ caption: 'a cat sleeping on a sofa' }).field('name', 'cats').expect(200)).body;
    const vql = JSON.stringify([{ text: { op: 'semantic', value: 'a rocket launch', threshold: 0.6 } }, { issues: { op: 'issue', value: 'dark' } }]);
    const darkRockets = (await api.request.post(views).query({ vql }).field('name', 'dark rockets').expect(200)).body;

    const batchId = randomUUID();
    await insertTask(db, { taskId: batchId, datasetId, taskType: 'MEDIA_ADDITION', createdBy: api.deps.defaultUser.id, input: {}, statusMessage: '' });
    const late = (await api.request.post(views).query({ caption: 'a cat sleeping on a sofa' }).field('name', 'too late').expect(200)).body;
    await db('datasets').where({ id: datasetId }).update({ status_new: 'READ ONLY' });

    const captions = [
      'A tabby cat asleep on the couch',
      'A rocket lifting off from the launch pad at night',
      'A rocket launching into a clear blue sky',
      'A cup of coffee on a wooden table',
    ];
    const versionId = await headVersionId(db, datasetId);
    const rows: Array<{ id: string; caption_key: string }> = await db('media')
      .insert(captions.map((caption, i) => ({ version_id: versionId, kind: 'IMAGE', batch_id: batchId, file_name: `${i}.jpg`, blob_sha256: 'x', caption, caption_embedded: true })))
      .returning(['id', 'caption_key']);
    const ids = rows.map((row) => row.id);
    await db('media_issues').insert({ media_id: ids[1], version_id: versionId, issue_type: 'dark', confidence: 0.9 });
    // Caption vectors live in the dataset's vector space, keyed by the caption's content.
    await vectors.ensureCollection(captionCollection(datasetId), textEncoder.dim);
    const embedded = await textEncoder.encode(captions);
    await vectors.upsert(captionCollection(datasetId), rows.map((row, i) => ({ id: row.caption_key, vector: embedded[i] })));

    const monitoring = createViewMonitoringActivities({ db, vectors, textEncoder });
    expect(await monitoring.evaluateViews({ taskId: batchId, datasetId, batchId })).toEqual({ views: 2, alerts: 2 });
    const trend = async (view: { id: string }) => (await api.request.get(`${views}/${view.id}/trend`).expect(200)).body;
    expect((await trend(cats)).points).toEqual([expect.objectContaining({ batch_id: batchId, count: 1, cumulative: 1 })]);
    expect((await trend(darkRockets)).points).toEqual([expect.objectContaining({ batch_id: batchId, count: 1, cumulative: 1 })]);
    expect((await trend(late)).points).toEqual([]);

    // Evaluating the same batch again (a retried activity) records and notifies nothing more.
    expect(await monitoring.evaluateViews({ taskId: batchId, datasetId, batchId })).toEqual({ views: 2, alerts: 0 });
    expect((await trend(cats)).total_results).toBe(1);
    const notifications = (await api.request.get('/api/v1/notifications').query({ dataset_id: datasetId }).expect(200)).body;
    expect(notifications.notifications.map((n: { metadata: { view_name: string } }) => n.metadata.view_name).sort()).toEqual(['cats', 'dark rockets']);
  });
});
