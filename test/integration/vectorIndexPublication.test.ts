import { createVectorPointRows } from '../../db/repositories/vectorPoints';
import { loadConfig } from '../../lib/config';
import { createObjectStore } from '../../lib/storage/createObjectStore';
import { indexPersistence } from '../../lib/vectors/createVectorStore';
import { createEmbeddedVectorStore } from '../../lib/vectors/embeddedVectorStore';
import { readHead } from '../../lib/vectors/persistedIndex';
import { imageCollection } from '../../lib/vectors/vectorStore';
import { createReadyDataset } from '../support/datasets';
import { eventually, photo, PHOTO_NAMES } from '../support/media';
import { startTestStack } from '../support/testStack';

describe('the vector index, published by the worker and loaded by the API', () => {
  let stack: Awaited<ReturnType<typeof startTestStack>>;

  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(() => stack.close());

  it('is published by the real worker once a creation is indexed, and a fresh API store answers from it without rebuilding', async () => {
    const datasetId = await createReadyDataset(stack, 'published index', PHOTO_NAMES.map(photo));
    const config = loadConfig(stack.env);
    const objects = createObjectStore(config);
    const collection = imageCollection(datasetId);
    // The worker publishes once its writes pause (2 s): nothing waits for it but this test.
    const head = await eventually(() => readHead(objects, collection), (found) => found?.points === PHOTO_NAMES.length, 30_000, 'a published index');

    const ready: Array<{ points: number; replayedRows: number }> = [];
    const api = createEmbeddedVectorStore({
      rows: createVectorPointRows(stack.deps.db),
      // A collection this small is otherwise replayed from its rows and searched exactly.
      exactSearchMaxPoints: 0,
      persistence: { ...indexPersistence(config, objects, 'api'), onLoaded: (_, figures) => ready.push(figures) },
    });
    const anchorId: string = (await stack.deps.db('media').where({ file_name: `${PHOTO_NAMES[2]}.jpg` }).first('id')).id;
    const [anchor] = (await api.get(collection, [anchorId])).values();
    const [hits] = await api.searchMany(collection, [anchor], 3);
    expect(hits[0]).toEqual({ id: anchorId, distance: expect.any(Number) });
    expect(ready).toEqual([expect.objectContaining({ points: head!.points, replayedRows: 0 })]);
    await api.close();
  });
});
