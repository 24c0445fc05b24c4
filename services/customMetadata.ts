import type { User } from '../db/models';
import { transitionDatasetStatus, type DatasetRow } from '../db/repositories/datasets';
import { releaseTransition } from '../lib/datasetStates';
import type { CustomMetadataInput } from '../workflows/contracts';
import { metadataFormatOf } from '../lib/metadata/parseMetadataFile';
import { blobKey, type ObjectStore } from '../lib/storage/objectStore';
import type { StagedFile } from '../lib/storage/staging';
import { claimDatasetFor, requireStatusFor } from './datasetStates';
import { createTask, type TaskDeps } from './taskWorkflows';

/** Stores the metadata file and starts a CUSTOM_METADATA task that applies it. */
export async function importCustomMetadata(
  deps: TaskDeps & { store: ObjectStore },
  dataset: DatasetRow,
  user: User,
  file: StagedFile & { fileName: string },
): Promise<string> {
  requireStatusFor(dataset, 'import_metadata');
  const format = metadataFormatOf(file.fileName)!;
  let previousStatus = dataset.status_new;
  await deps.store.putFile(blobKey(file.sha256), file.path);
  return createTask(
    deps,
    {
      taskType: 'CUSTOM_METADATA',
      datasetId: dataset.id,
      user,
      statusMessage: `Queued: ${file.fileName}`,
      input: (taskId): CustomMetadataInput => ({ taskId, datasetId: dataset.id, blobSha256: file.sha256, format, previousStatus }),
    },
    async (trx) => {
      previousStatus = await claimDatasetFor(trx, dataset, 'import_metadata');
    },
    async (db) => {
      await transitionDatasetStatus(db, dataset.id, releaseTransition('import_metadata', previousStatus));
    },
  );
}
