import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MAX_MEDIA_PATH_BYTES } from '../../lib/media/mediaPath';
import { makeZip } from '../support/archives';
import { databaseFingerprint } from '../support/databaseFingerprint';
import { newDatasetWithTransaction, waitForDatasetStatus, waitForMap, waitForTask } from '../support/datasets';
import { exportWholeDataset } from '../support/exportArchives';
import { photo } from '../support/media';
import { startTestStack } from '../support/testStack';
import { headVersionId } from '../support/versions';

type Stack = Awaited<ReturnType<typeof startTestStack>>;
type Request = ReturnType<Stack['request']['post']>;

/** A multipart file part sent under `name` (form-data keeps the folders of a `filepath`; a `filename` loses them). */
const sentAs = (request: Request, file: string, name: string) => request.attach('files', file, { filepath: name } as { filename?: string });

/** A path of `bytes` UTF-8 bytes ending in .jpg. */
const pathOf = (bytes: number) => `cats/${'a'.repeat(bytes - 'cats/'.length - '.jpg'.length)}.jpg`;

/**
 * Class folders whose files repeat names (`cats/0001.jpg`, `dogs/0001.jpg`: ImageFolder, Kaggle sets)
 * through the real API, worker, embedding model and vector index: each file keeps its relative path
 * as its name, at creation and on add_media alike, and its folder as its label; a path sent twice in
 * one request, or longer than the limit, is a 422 naming it that changes nothing.
 */
describe('class folders with repeated file names', () => {
  let stack: Stack;
  let datasetId: string;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'class-folder-names-'));

  beforeAll(async () => {
    stack = await startTestStack();
  }, 300_000);
  afterAll(async () => {
    await stack?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const upload = (dataset: { datasetId: string; transId: number }) => stack.request.post(`/api/v1/ingestion/${dataset.datasetId}/data_files/${dataset.transId}`);
  const addMedia = () => stack.request.post(`/api/v1/dataset/${datasetId}/add_media`);
  /** The head version's media: name → custom metadata. */
  async function headMedia(): Promise<Map<string, unknown>> {
    const rows: Array<{ file_name: string; custom_metadata: unknown }> = await stack.deps
      .db('media')
      .where({ version_id: await headVersionId(stack.deps.db, datasetId) })
      .whereNull('parent_id')
      .select('file_name', 'custom_metadata');
    return new Map(rows.map((row) => [row.file_name, row.custom_metadata]));
  }

  it('keeps every file of a creation upload under its relative path, labelled by its folder', async () => {
    const created = await newDatasetWithTransaction(stack, 'pets by folder');
    datasetId = created.datasetId;
    const first = upload(created);
    sentAs(first, photo('chelsea'), 'cats/0001.jpg');
    sentAs(first, photo('coffee'), 'dogs/0001.jpg');
    sentAs(first, photo('astronaut'), 'pets/cats/0002.jpg');
    sentAs(first, photo('rocket'), '/dogs/./0002.jpg');
    expect((await first.expect(202)).body.files.sort()).toEqual(['cats/0001.jpg', 'dogs/0001.jpg', 'dogs/0002.jpg', 'pets/cats/0002.jpg']);
    // Another request of the same transaction may hold the same base names in other folders.
    const second = upload(created);
    sentAs(second, photo('camera'), 'birds/0001.jpg');
    expect((await second.expect(202)).body.files).toEqual(['birds/0001.jpg']);

    await stack.request.post(`/api/v1/ingestion/${datasetId}/process_files/${created.transId}`).query({ labels_from: 'folder' }).expect(202);
    expect(await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'], 600_000)).toMatchObject({ status: 'COMPLETED', error_message: null });
    expect((await stack.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body).toMatchObject({ status_new: 'READY', n_images: 5 });
    expect(await headMedia()).toEqual(
      new Map([
        ['cats/0001.jpg', { label: 'cats' }],
        ['dogs/0001.jpg', { label: 'dogs' }],
        ['pets/cats/0002.jpg', { label: 'cats' }],
        ['dogs/0002.jpg', { label: 'dogs' }],
        ['birds/0001.jpg', { label: 'birds' }],
      ]),
    );
    const explored = (await stack.request.get(`/api/v1/explore/${datasetId}`).query({ entity_type: 'IMAGES', threshold: 0 }).expect(200)).body;
    const shown = explored.clusters.flatMap((cluster: { previews: Array<{ file_name: string }> }) => cluster.previews.map((preview) => preview.file_name));
    expect(shown.sort()).toEqual(['birds/0001.jpg', 'cats/0001.jpg', 'dogs/0001.jpg', 'dogs/0002.jpg', 'pets/cats/0002.jpg']);
  }, 900_000);

  it('exports each file under its own path, the folders kept', async () => {
    const { entries } = await exportWholeDataset(stack, datasetId, { file_name: 'pets', export_format: 'json', include_images: 'true' });
    const images = [...entries.keys()].filter((name) => name.startsWith('images/')).sort();
    expect(images).toEqual(['images/birds/0001.jpg', 'images/cats/0001.jpg', 'images/dogs/0001.jpg', 'images/dogs/0002.jpg', 'images/pets/cats/0002.jpg']);
    expect(entries.get('images/cats/0001.jpg')).toEqual(fs.readFileSync(photo('chelsea')));
    expect(entries.get('images/dogs/0001.jpg')).toEqual(fs.readFileSync(photo('coffee')));
  }, 300_000);

  it('names add_media uploads and archive members by the same rule', async () => {
    const uploads = addMedia().field('labels_from', 'folder');
    sentAs(uploads, photo('grace_hopper'), 'cats/0003.jpg');
    sentAs(uploads, photo('motorcycle_left'), 'dogs\\0003.jpg');
    await uploads.expect(202);
    expect(await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'], 600_000)).toMatchObject({ task_type: 'MEDIA_ADDITION', status: 'COMPLETED', error_message: null });

    const zip = makeZip(path.join(scratch, 'more.zip'), { 'bag/0001.jpg': photo('hubble_deep_field'), './shoes/0001.jpg': photo('chelsea') });
    await addMedia().attach('archive', zip).field('labels_from', 'folder').expect(202);
    expect(await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'], 600_000)).toMatchObject({ task_type: 'MEDIA_ADDITION', status: 'COMPLETED', error_message: null });
    await waitForMap(stack, datasetId);

    const media = await headMedia();
    expect(media.get('cats/0003.jpg')).toEqual({ label: 'cats' });
    expect(media.get('dogs/0003.jpg')).toEqual({ label: 'dogs' });
    expect(media.get('bag/0001.jpg')).toEqual({ label: 'bag' });
    expect(media.get('shoes/0001.jpg')).toEqual({ label: 'shoes' });
    expect(media.size).toBe(9);
  }, 900_000);

  it('refuses a path sent twice in one request (422 naming it), storing nothing', async () => {
    const open = await newDatasetWithTransaction(stack, 'repeated paths');
    const before = await databaseFingerprint(stack.deps.db);
    const creation = upload(open);
    sentAs(creation, photo('chelsea'), 'cats/0001.jpg');
    sentAs(creation, photo('coffee'), 'dogs/0001.jpg');
    sentAs(creation, photo('rocket'), 'cats/./0001.jpg');
    sentAs(creation, photo('camera'), 'dogs/0002.jpg');
    sentAs(creation, photo('astronaut'), 'dogs/0002.jpg');
    expect((await creation.expect(422)).body).toEqual({ detail: 'Each file path may be sent once per request; sent more than once: cats/0001.jpg, dogs/0002.jpg' });

    const batch = addMedia();
    sentAs(batch, photo('chelsea'), 'cats/0009.jpg');
    sentAs(batch, photo('coffee'), 'cats\\0009.jpg');
    expect((await batch.expect(422)).body).toEqual({ detail: 'Each file path may be sent once per request; sent more than once: cats/0009.jpg' });
    expect(await databaseFingerprint(stack.deps.db)).toEqual(before);
  });

  it(`refuses a path longer than ${MAX_MEDIA_PATH_BYTES} bytes (422 stating the limit), storing nothing`, async () => {
    const open = await newDatasetWithTransaction(stack, 'long paths');
    const tooLong = pathOf(MAX_MEDIA_PATH_BYTES + 1);
    const detail = `File path is longer than ${MAX_MEDIA_PATH_BYTES} bytes (UTF-8): ${tooLong.slice(0, 80)}…`;
    const before = await databaseFingerprint(stack.deps.db);
    const creation = upload(open);
    sentAs(creation, photo('chelsea'), 'cats/0001.jpg');
    sentAs(creation, photo('coffee'), tooLong);
    expect((await creation.expect(422)).body).toEqual({ detail });
    // Far beyond what the unique index could hold (~2.7 KB).
    expect((await sentAs(addMedia(), photo('coffee'), pathOf(3000)).expect(422)).body.detail).toMatch(new RegExp(`^File path is longer than ${MAX_MEDIA_PATH_BYTES} bytes`));
    expect((await sentAs(addMedia(), photo('coffee'), tooLong).expect(422)).body).toEqual({ detail });
    expect(await databaseFingerprint(stack.deps.db)).toEqual(before);

    // At the limit it is kept.
    const longest = pathOf(MAX_MEDIA_PATH_BYTES);
    expect((await sentAs(upload(open), photo('chelsea'), longest).expect(202)).body.files).toEqual([longest]);
  });

  it('fails an archive batch with a member path over the limit with a message stating it, the dataset usable', async () => {
    const zip = makeZip(path.join(scratch, 'long.zip'), { [pathOf(3000)]: photo('camera') });
    await addMedia().attach('archive', zip).expect(202);
    const failed = await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'], 300_000);
    expect(failed).toMatchObject({ task_type: 'MEDIA_ADDITION', status: 'FAILED' });
    expect(failed.error_message).toContain(`File path is longer than ${MAX_MEDIA_PATH_BYTES} bytes (UTF-8): cats/aaa`);
    await waitForDatasetStatus(stack, datasetId, ['READY', 'PARTIAL INDEX']);
    expect((await headMedia()).size).toBe(9);
  }, 600_000);
});
