import type { Db } from '../connection';
import { forgetFacetCounts } from './clusterFacets';
import { reportAsLabelledNow, type LabelQualityReport } from '../../lib/quality/labelQuality';
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

/** The version's videos with a value in the split field, and that value. */
export async function videoSplits(db: Db, versionId: string, splitField: string): Promise<Map<string, string>> {
  const { rows } = await db.raw(
    `SELECT id, btrim(custom_metadata->>?) AS split FROM media
      WHERE version_id = ? AND kind = 'VIDEO' AND nullif(btrim(custom_metadata->>?), '') IS NOT NULL`,
    [splitField, versionId, splitField],
  );
  return new Map(rows.map((row: { id: string; split: string }) => [row.id, row.split]));
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

/** The version's label-quality report as its last check wrote it (or only its declared fields before one), or undefined. */
export async function labelQualityReport(db: Db, versionId: string): Promise<LabelQualityReport | undefined> {
  const row = await db('dataset_versions').where({ id: versionId }).first('label_quality');
  return row?.label_quality ?? undefined;
}

/** The version's label-quality report with the labels as they are now (reportAsLabelledNow), or undefined before its first check. */
export async function currentLabelQualityReport(db: Db, versionId: string): Promise<LabelQualityReport | undefined> {
  const report = await labelQualityReport(db, versionId);
  // A report is whole once a check wrote it; before, the version holds only the declared fields.
  if (!report?.checked_at) return report;
  const label = `nullif(btrim(m.custom_metadata->>?), '')`;
  const [classes, confused] = await Promise.all([
    db.raw(
      `SELECT ${label} AS label, count(*)::int AS count, count(i.media_id)::int AS flagged
         FROM media m LEFT JOIN media_issues i ON i.version_id = m.version_id AND i.media_id = m.id AND i.issue_type = 'mislabel'
        WHERE m.version_id = ? AND m.kind = 'IMAGE' AND m.embedded AND ${label} IS NOT NULL
        GROUP BY 1`,
      [report.label_field, versionId, report.label_field],
    ),
    db.raw(
      `SELECT ${label} AS label, i.details->>'suggested_label' AS suggested_label, count(*)::int AS count
         FROM media_issues i JOIN media m ON m.version_id = i.version_id AND m.id = i.media_id
        WHERE i.version_id = ? AND i.issue_type = 'mislabel' AND ${label} IS NOT NULL AND i.details->>'suggested_label' IS NOT NULL
        GROUP BY 1, 2 ORDER BY count DESC, label, suggested_label`,
      [report.label_field, versionId, report.label_field],
    ),
  ]);
  return reportAsLabelledNow(report, { classes: classes.rows, confused: confused.rows });
}
