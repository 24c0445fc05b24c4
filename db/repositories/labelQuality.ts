import type { Db } from '../connection';
import { forgetFacetCounts } from './clusterFacets';
import type { LabelQualityReport } from '../../lib/quality/labelQuality';
import { insertInBatches } from './clusters';

/** The issue types a label-quality check writes (and replaces as a whole). */
export const LABEL_ISSUE_TYPES = ['mislabel', 'leakage'] as const;

export interface LabelledMediaRow {
  id: string;
  /** The values of the declared custom-metadata fields as text; null when absent or empty. */
  label: string | null;
  split: string | null;
}

/** The version's embedded images with the values of its label (and split) field. */
export async function labelledMedia(db: Db, versionId: string, fields: { label: string; split: string | null }): Promise<LabelledMediaRow[]> {
  const { rows } = await db.raw(
    `SELECT id, nullif(btrim(custom_metadata->>?), '') AS label, nullif(btrim(custom_metadata->>?), '') AS split
       FROM media WHERE version_id = ? AND kind = 'IMAGE' AND embedded ORDER BY id`,
    [fields.label, fields.split ?? '', versionId],
  );
  return fields.split === null ? rows.map((row: LabelledMediaRow) => ({ ...row, split: null })) : rows;
}

/** How many images of the version carry `field` in their custom metadata. */
export async function countMediaWithField(db: Db, versionId: string, field: string): Promise<number> {
  const row = await db('media').where({ version_id: versionId }).whereRaw('custom_metadata \\? ?', [field]).count<{ count: string }>('* as count').first();
  return Number(row?.count ?? 0);
}

export interface MetadataFieldRow {
  name: string;
  /** Media of the version carrying the field, and the distinct values it takes among them. */
  media: number;
  values: number;
}

/** The custom-metadata fields of the version's media, most carried first (at most `limit`). */
export async function customMetadataFields(db: Db, versionId: string, limit: number): Promise<MetadataFieldRow[]> {
  const { rows } = await db.raw(
    `SELECT f.key AS name, count(*)::int AS media, count(DISTINCT f.value)::int AS values
       FROM media m CROSS JOIN LATERAL jsonb_each(m.custom_metadata) f
      WHERE m.version_id = ? AND jsonb_typeof(m.custom_metadata) = 'object'
      GROUP BY f.key ORDER BY media DESC, name LIMIT ?`,
    [versionId, limit],
  );
  return rows;
}

export interface LabelIssueRow {
  media_id: string;
  issue_type: (typeof LABEL_ISSUE_TYPES)[number];
  confidence: number;
  details: Record<string, unknown>;
}

/** Replaces the version's mislabel and leakage issues and its report, in the caller's transaction. */
export async function writeLabelQuality(db: Db, versionId: string, issues: LabelIssueRow[], report: LabelQualityReport): Promise<void> {
  await db.transaction(async (trx) => {
    await forgetFacetCounts(trx, versionId, ['issue']);
    await trx('media_issues').where({ version_id: versionId }).whereIn('issue_type', LABEL_ISSUE_TYPES).delete();
    await insertInBatches(
      trx,
      'media_issues',
      issues.map((issue) => ({ ...issue, details: JSON.stringify(issue.details) })),
      { version_id: versionId },
    );
    await trx('dataset_versions').where({ id: versionId }).update({ label_quality: JSON.stringify(report) });
  });
}

/** The version's label-quality report, or undefined before its first check. */
export async function labelQualityReport(db: Db, versionId: string): Promise<LabelQualityReport | undefined> {
  const row = await db('dataset_versions').where({ id: versionId }).first('label_quality');
  return row?.label_quality ?? undefined;
}
