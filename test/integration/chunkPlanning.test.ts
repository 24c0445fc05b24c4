import { chunkFiles, planFileChunks, recordUploadedFiles } from '../../db/repositories/ingestion';
import { newDatasetWithTransaction } from '../support/datasets';
import { startTestApi, type TestApi } from '../support/testStack';

describe('planning the chunks of a run (real Postgres)', () => {
  let api: TestApi;
  let transactionId: number;
  let ids: string[];

  beforeAll(async () => {
    api = await startTestApi();
    const { datasetId, transId } = await newDatasetWithTransaction(api, 'chunks');
    transactionId = transId;
    const files = Array.from({ length: 10 }, (_, i) => ({ fileName: `f${i}.jpg`, mediaKind: 'IMAGE' as const, sha256: String(i).repeat(64).slice(0, 64), size: 1 }));
    await recordUploadedFiles(api.deps.db, datasetId, transId, files);
    ids = (await api.deps.db('uploaded_files').where({ transaction_id: transId }).orderBy('id').pluck('id')) as string[];
  });
  afterAll(() => api.close());

  it('cuts the files into chunks of the size asked, a window at a time, and says how many chunks remain', async () => {
    const selection = { transactionId };
    expect(await planFileChunks(api.deps.db, selection, null, 3, 2)).toEqual({ ends: [ids[2], ids[5]], remaining: 4 });
    expect(await planFileChunks(api.deps.db, selection, ids[5], 3, 2)).toEqual({ ends: [ids[8], ids[9]], remaining: 2 });
    expect(await planFileChunks(api.deps.db, selection, ids[9], 3, 2)).toEqual({ ends: [], remaining: 0 });
    expect(await planFileChunks(api.deps.db, selection, null, 100, 64)).toEqual({ ends: [ids[9]], remaining: 1 });
  });

  it('gives a chunk exactly the files after its start up to its end, in id order', async () => {
    const selection = { transactionId };
    expect((await chunkFiles(api.deps.db, selection, { after: null, last: ids[2] })).map((file) => file.id)).toEqual(ids.slice(0, 3));
    expect((await chunkFiles(api.deps.db, selection, { after: ids[2], last: ids[5] })).map((file) => file.id)).toEqual(ids.slice(3, 6));
    expect(await chunkFiles(api.deps.db, { transactionId: transactionId + 1000 }, { after: null, last: ids[9] })).toEqual([]);
  });
});
