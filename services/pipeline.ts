import { datasetOwner, getDatasetAccess } from '../db/repositories/datasets';
import { datasetNotFound } from '../lib/errors';
import { checkAddMediaPreconditions, checkLocalSource, requireAddMediaEnabled, startMediaAddition, type MediaAdditionDeps } from './mediaAddition';

/**
 * The on-premises pipeline's add_media: a batch from a local folder, manifest, archive or file,
 * started on behalf of the dataset's owner with the same preconditions as add_media.
 */
export async function addMediaFromPipeline(
  deps: MediaAdditionDeps,
  request: { datasetId: string; path: string; autoReindex: boolean },
): Promise<string> {
  requireAddMediaEnabled(deps.config);
  const owner = await datasetOwner(deps.db, request.datasetId);
  if (!owner) throw datasetNotFound();
  const access = await getDatasetAccess(deps.db, request.datasetId, owner.id);
  if (access.kind !== 'granted') throw datasetNotFound();
  await checkAddMediaPreconditions(deps, access.dataset);
  const source = await checkLocalSource(deps.config, request.path);
  return startMediaAddition(deps, access.dataset, owner, { source, autoReindex: request.autoReindex, hints: {} });
}
