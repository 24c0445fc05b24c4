import { Context } from '@temporalio/activity';
import type { Db } from '../db/connection';
import type { ObjectStore } from '../lib/storage/objectStore';
import type { VectorStore } from '../lib/vectors/vectorStore';
import * as collection from '../services/storageCollection';
import { heartbeating } from './liveness';

/** The storage collector's steps: thin adapters over services/storageCollection.ts that heartbeat. */
export function createStorageCollectionActivities(deps: { db: Db; store: ObjectStore; vectors: VectorStore; settings: collection.CollectionSettings }) {
  const heartbeat = () => Context.current().heartbeat();
  const steps = { ...deps, heartbeat };
  return heartbeating({
    purgeDeletedDatasets: () => collection.purgeDeletedDatasets(steps),
    purgeDeletedSnapshots: () => collection.purgeExpiredSnapshots(steps),
    releaseExpiredExportArchives: () => collection.releaseExpiredExportArchives(steps),
    releaseBlobs: () => collection.releaseBlobs(steps),
    releaseModelInputs: () => collection.releaseModelInputs(steps),
    releaseVectorPoints: () => collection.releaseVectorPoints(steps),
    releaseVectorSpaces: () => collection.releaseVectorSpaces(steps),
    releaseExportArchives: () => collection.releaseExportArchives(steps),
    async collectionSettings(): Promise<{ intervalMinutes: number }> {
      return { intervalMinutes: deps.settings.intervalMinutes };
    },
  });
}
