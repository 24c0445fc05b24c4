import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sha256Hex } from '../../lib/sha256';
import { requireDataset } from '../../services/datasetAccess';
import { requireOpenTransaction, storeUploads } from '../../services/ingestion';
import { newDatasetWithTransaction, uploadFiles } from '../support/datasets';
import { photo } from '../support/media';
import { startTestApi, type TestApi } from '../support/testStack';

/**
 * An upload that passed the "transaction is OPEN" check while process_files claimed the transaction
 * records nothing: the batch the task indexes is the one it claimed (issue 24's reproduced race).
 */
describe('an upload racing process_files', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi();
  }, 120_000);
  afterAll(async () => {
    await api?.close();
  });

  it('is refused with 400 once the transaction is claimed, and the claimed batch keeps exactly its files', async () => {
    const { db, store } = api.deps;
    const { datasetId, transId } = await newDatasetWithTransaction(api, 'race');
    await uploadFiles(api, datasetId, transId, [photo('chelsea')]).expect(202);
    const { owner_id: ownerId } = await db('datasets').where({ id: datasetId }).first('owner_id');
    const dataset = await requireDataset(db, datasetId, ownerId);
    // The upload request's check, made before its body arrived …
    const checked = await requireOpenTransaction(db, dataset, transId);
    // … then process_files claims the transaction …
    await api.request.post(`/api/v1/ingestion/${datasetId}/process_files/${transId}`).expect(202);
    // … and the upload's files arrive.
    // Staged as an upload is: the store takes the file away.
    const late = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'race-')), 'coffee.jpg');
    fs.copyFileSync(photo('coffee'), late);
    const bytes = fs.readFileSync(late);
    await expect(storeUploads(db, store, checked, [{ path: late, sha256: sha256Hex(bytes), size: bytes.length, fileName: 'coffee.jpg' }])).rejects.toThrow(
      `Transaction ${transId} is already being processed; these files were not added`,
    );
    expect(await db('uploaded_files').where({ transaction_id: transId }).pluck('file_name')).toEqual(['chelsea.jpg']);
  });
});
