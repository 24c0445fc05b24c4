import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from '../connection';
import { forgetFacetCounts } from './clusterFacets';
import { selectedMedia, type MediaSelection } from './selection';

/**
 * The user's own labels ("ground truth"): the value of the version's declared label field in each media item's
 * custom metadata (folder names with labels_from=folder, a CSV or COCO import, or fixes made here). Kept apart
 * from the model-made labels of media_labels. Every change is a row of label_changes, so it can be undone.
 */

export interface LabelFields {
  labelField: string | null;
  splitField: string | null;
}

/** The version's declared label and split fields (its label-quality report's), null before a declaration. */
export async function labelFieldsOfVersion(db: Db, versionId: string): Promise<LabelFields> {
  const row = await db('dataset_versions')
    .where({ id: versionId })
    .first(db.raw(`label_quality->>'label_field' AS label_field`), db.raw(`label_quality->>'split_field' AS split_field`));
  return { labelField: row?.label_field ?? null, splitField: row?.split_field ?? null };
}

export interface ClassCount {
  label: string;
  /** Images and video frames with the label (videos count by their frames, as Explore does). */
  count: number;
}

/** Each class of the version (the values of `field` on its images and frames), largest first, and how many have none. */
export async function classCounts(db: Db, versionId: string, field: string): Promise<{ classes: ClassCount[]; unlabelled: number }> {
  const { rows } = await db.raw(
    `SELECT nullif(btrim(custom_metadata->>?), '') AS label, count(*)::int AS count
       FROM media WHERE version_id = ? AND kind IN ('IMAGE', 'VIDEO_FRAME')
      GROUP BY 1 ORDER BY count DESC, label`,
    [field, versionId],
  );
  const classes = (rows as Array<{ label: string | null; count: number }>).filter((row): row is ClassCount => row.label !== null);
  return { classes, unlabelled: rows.find((row: { label: string | null }) => row.label === null)?.count ?? 0 };
}

export interface LabelWrite {
  versionId: string;
  field: string;
  action: 'set' | 'accept' | 'propagate';
  userId: string | null;
}

/** An item and the label it is to get. */
type Relabel = { mediaId: string; label: string };

/**
 * Writes new labels into the field and records each change (items whose label is already that are left alone),
 * in the caller's transaction, in one statement; the changed items lose their mislabel flags (the user has decided them).
 * Returns the action's id and how many items changed.
 */
async function writeLabels(trx: Db, write: LabelWrite, relabels: string, bindings: readonly Knex.RawBinding[]): Promise<{ actionId: string; changed: number }> {
  const actionId = randomUUID();
  const { rows } = await trx.raw(
    `WITH wanted AS (${relabels}),
     old AS (
       SELECT m.id, m.custom_metadata->>? AS previous, w.label,
              CASE WHEN i.media_id IS NOT NULL THEN jsonb_build_object('confidence', i.confidence, 'details', i.details) END AS mislabel
         FROM media m JOIN wanted w ON w.media_id = m.id
         LEFT JOIN media_issues i ON i.version_id = m.version_id AND i.media_id = m.id AND i.issue_type = 'mislabel'
        WHERE m.version_id = ? AND (m.custom_metadata->>?) IS DISTINCT FROM w.label
          FOR UPDATE OF m),
     written AS (
       UPDATE media m SET custom_metadata = CASE WHEN old.label IS NULL THEN coalesce(m.custom_metadata, '{}'::jsonb) - ?::text
                                                 ELSE coalesce(m.custom_metadata, '{}'::jsonb) || jsonb_build_object(?::text, old.label) END
         FROM old WHERE m.version_id = ? AND m.id = old.id
       RETURNING m.id, old.previous, old.label, old.mislabel),
     -- The items changed lose their mislabel flags: the user has decided them (an undo puts the flags back).
     cleared AS (
       DELETE FROM media_issues i USING written w
        WHERE i.version_id = ? AND i.media_id = w.id AND i.issue_type = 'mislabel' AND w.mislabel IS NOT NULL)
     INSERT INTO label_changes (version_id, media_id, action_id, action, field, previous, label, created_by, mislabel)
     SELECT ?, w.id, ?, ?, ?, w.previous, w.label, ?, w.mislabel FROM written w
     RETURNING media_id, mislabel IS NOT NULL AS flagged`,
    [
      ...bindings,
      write.field,
      write.versionId,
      write.field,
      write.field,
      write.field,
      write.versionId,
      write.versionId,
      write.versionId,
      actionId,
      write.action,
      write.field,
      write.userId,
    ],
  );
  if (rows.some((row: { flagged: boolean }) => row.flagged)) await forgetFacetCounts(trx, write.versionId, ['issue']);
  return { actionId, changed: rows.length };
}

/** Flags a write cleared (kept on its rows), put back by the undo of that write. */
async function restoreMislabelFlags(trx: Db, versionId: string, undoneActionId: string): Promise<void> {
  const { rowCount } = await trx.raw(
    `INSERT INTO media_issues (version_id, media_id, issue_type, confidence, details)
     SELECT version_id, media_id, 'mislabel', (mislabel->>'confidence')::float8, mislabel->'details'
       FROM label_changes WHERE version_id = ? AND action_id = ? AND mislabel IS NOT NULL
     ON CONFLICT DO NOTHING`,
    [versionId, undoneActionId],
  );
  if (rowCount > 0) await forgetFacetCounts(trx, versionId, ['issue']);
}

/** Gives every image and frame of the selection `label` (null: takes their label off). */
export function setLabelOn(trx: Db, write: LabelWrite, selection: MediaSelection, label: string | null): Promise<{ actionId: string; changed: number }> {
  const selected = selectedMedia(trx, write.versionId, selection).toSQL();
  return writeLabels(trx, write, `SELECT s.id AS media_id, ?::text AS label FROM (${selected.sql}) s`, [label, ...selected.bindings]);
}

/**
 * Gives flagged items the label the check suggested: those listed (all flagged ones when `mediaIds` is absent) whose
 * mislabel score is at least `minScore`.
 */
export function acceptSuggestedLabels(trx: Db, write: LabelWrite, options: { mediaIds?: string[]; minScore: number }): Promise<{ actionId: string; changed: number }> {
  const listed = options.mediaIds ? 'AND i.media_id = ANY(?::uuid[])' : '';
  return writeLabels(
    trx,
    write,
    `SELECT i.media_id, i.details->>'suggested_label' AS label FROM media_issues i
      WHERE i.version_id = ? AND i.issue_type = 'mislabel' AND i.confidence >= ? AND i.details->>'suggested_label' <> '' ${listed}`,
    [write.versionId, options.minScore, ...(options.mediaIds ? [options.mediaIds] : [])],
  );
}

/** Gives each listed item its own label (what propagation found for it). */
export function writeLabelList(trx: Db, write: LabelWrite, relabels: Relabel[]): Promise<{ actionId: string; changed: number }> {
  return writeLabels(trx, write, 'SELECT * FROM unnest(?::uuid[], ?::text[]) AS r(media_id, label)', [relabels.map((r) => r.mediaId), relabels.map((r) => r.label)]);
}

/**
 * Reverts the version's latest action not yet undone: each item gets back its label from before (and the mislabel
 * flag the action cleared), the action's rows are marked undone, and the revert is recorded as an `undo` action.
 * Undefined when there is nothing to undo.
 */
export async function undoLastLabelAction(trx: Db, versionId: string, userId: string | null): Promise<{ actionId: string; action: string; undone: number } | undefined> {
  const last = await trx('label_changes')
    .where({ version_id: versionId, undone_by: null })
    .whereNot('action', 'undo')
    .orderBy('id', 'desc')
    .first('action_id', 'action');
  if (!last) return undefined;
  const undoId = randomUUID();
  const { rows } = await trx.raw(
    `WITH reverted AS (
       UPDATE label_changes SET undone_by = ? WHERE version_id = ? AND action_id = ? RETURNING media_id, field, previous, label),
     written AS (
       UPDATE media m SET custom_metadata = CASE WHEN r.previous IS NULL THEN coalesce(m.custom_metadata, '{}'::jsonb) - r.field
                                                 ELSE coalesce(m.custom_metadata, '{}'::jsonb) || jsonb_build_object(r.field, r.previous) END
         FROM reverted r WHERE m.version_id = ? AND m.id = r.media_id
       RETURNING m.id)
     INSERT INTO label_changes (version_id, media_id, action_id, action, field, previous, label, created_by)
     SELECT ?, r.media_id, ?, 'undo', r.field, r.label, r.previous, ? FROM reverted r
     RETURNING media_id`,
    [undoId, versionId, last.action_id, versionId, versionId, undoId, userId],
  );
  await restoreMislabelFlags(trx, versionId, last.action_id);
  return { actionId: last.action_id, action: last.action, undone: rows.length };
}

export interface LabelChangeRow {
  action_id: string;
  action: string;
  field: string;
  previous: string | null;
  label: string | null;
  undone: boolean;
  created_by: string | null;
  created_at: Date;
}

/** An item's label changes in the version, newest first; undefined when the version has no such item. */
export async function labelHistory(db: Db, versionId: string, mediaId: string, limit = 100): Promise<LabelChangeRow[] | undefined> {
  if (!(await db('media').where({ version_id: versionId, id: mediaId }).first('id'))) return undefined;
  return db('label_changes as c')
    .leftJoin('users as u', 'u.id', 'c.created_by')
    .where({ 'c.version_id': versionId, 'c.media_id': mediaId })
    .orderBy('c.id', 'desc')
    .limit(limit)
    .select('c.action_id', 'c.action', 'c.field', 'c.previous', 'c.label', db.raw('c.undone_by IS NOT NULL AS undone'), 'u.email as created_by', 'c.created_at');
}

/** How many of `mediaIds` would change class if given `label` (null without a label field). */
export async function countClassChanges(db: Db, versionId: string, mediaIds: string[], label: string): Promise<number | null> {
  const { labelField } = await labelFieldsOfVersion(db, versionId);
  if (labelField === null) return null;
  const row = await db('media')
    .where({ version_id: versionId })
    .whereRaw('id = ANY(?::uuid[])', [mediaIds])
    .whereRaw('(custom_metadata->>?) IS DISTINCT FROM ?', [labelField, label])
    .first(db.raw('count(*)::int AS n'));
  return row?.n ?? 0;
}
