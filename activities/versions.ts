import type { Db } from '../db/connection';
import { copyDatasetVersion, type VersionCopy } from '../services/versionCopies';
import { activityLiveness, heartbeating } from './liveness';

/** Copies of dataset versions (services/versionCopies.ts), heartbeating per table. */
export function createVersionActivities(deps: { db: Db }) {
  return heartbeating({
    copyDatasetVersion: (copy: VersionCopy) => copyDatasetVersion(deps.db, activityLiveness(), copy),
  });
}
