import { ApplicationFailure } from '@temporalio/common';
import type { Db } from '../db/connection';
import { copyVersion, findVersion, type VersionTable } from '../db/repositories/versions';
import type { Liveness } from './taskLiveness';

export interface VersionCopy {
  sourceVersionId: string;
  /** The dataset the copy belongs to: the source's own (a snapshot, a restore) or a new one (a clone, an enriched copy). */
  targetDatasetId: string;
  /** Chosen by the workflow, so a repeated activity finds its own copy instead of making a second. */
  versionId: string;
}

/**
 * Copies a dataset version: every row of the source version (media, tags, issues, labels, …) into a new version in
 * one transaction, a range of media ids per INSERT … SELECT; the clustering is shared, not copied. Ids are kept;
 * media bytes and vectors are shared, never copied or recomputed. A missing source fails for good.
 */
export async function copyDatasetVersion(db: Db, live: Liveness, copy: VersionCopy): Promise<{ versionId: string; rows: Partial<Record<VersionTable, number>> }> {
  const source = await findVersion(db, copy.sourceVersionId);
  if (!source) {
    throw ApplicationFailure.create({ type: 'VersionNotFound', message: `Version ${copy.sourceVersionId} does not exist`, nonRetryable: true });
  }
  const rows = await copyVersion(db, source, copy.targetDatasetId, copy.versionId, (table) => live.heartbeat(table));
  return { versionId: copy.versionId, rows };
}
