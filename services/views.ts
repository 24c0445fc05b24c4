import type { Db } from '../db/connection';
import type { User } from '../db/models';
import type { DatasetRow } from '../db/repositories/datasets';
import { insertNotifications } from '../db/repositories/notifications';
import { createView, deleteView, findView, listViews, recordViewEvaluation, renameView, setAlerting, trendPoints, type ViewFilters, type ViewRow } from '../db/repositories/views';
import { invalid, notFound, unprocessable } from '../lib/errors';
import { splitVql } from '../lib/vql/compileVql';
import { parseVql, VqlError } from '../lib/vql/parseVql';
import { requireCurrentMapLayout } from './map';

export interface NewView {
  name: string;
  entityType: ViewFilters['entity_type'];
  threshold: number;
  caption?: string;
  /** VQL as the client sent it (a JSON array); checked here and stored as given. */
  vql?: string;
}

export interface ViewTrend {
  view: ViewRow;
  points: Array<{ timestamp: Date; batch_id: string; count: number; cumulative: number }>;
}

/** Saves the current filters of a dataset as a view, monitored from now on; a name is unique per dataset. */
export async function saveView(db: Db, dataset: DatasetRow, user: User, input: NewView): Promise<ViewRow> {
  let vql: unknown[] = [];
  try {
    if (input.vql) {
      await requireCurrentMapLayout(db, dataset, splitVql(parseVql(input.vql)).filters);
      vql = JSON.parse(input.vql);
    }
  } catch (error) {
    if (error instanceof VqlError) throw unprocessable(error.message);
    throw error;
  }
  const view = await createView(db, {
    datasetId: dataset.id,
    name: input.name,
    userId: user.id,
    filters: { entity_type: input.entityType, threshold: String(input.threshold), caption: input.caption ?? null, vql },
  });
  if (!view) throw unprocessable(`A view named "${input.name}" already exists in this dataset`);
  return view;
}

export function listSavedViews(db: Db, dataset: DatasetRow): Promise<ViewRow[]> {
  return listViews(db, dataset.id);
}

/** Renames a view; the name stays unique per dataset (422 when taken, as at creation). */
export async function renameSavedView(db: Db, dataset: DatasetRow, viewId: string, name: string): Promise<ViewRow> {
  const outcome = await renameView(db, dataset.id, viewId, name);
  if (outcome === 'missing') throw notFound('View not found');
  if (outcome === 'taken') throw unprocessable(`A view named "${name}" already exists in this dataset`);
  return (await findView(db, dataset.id, viewId))!;
}

export async function deleteSavedView(db: Db, dataset: DatasetRow, viewId: string): Promise<void> {
  if (!(await deleteView(db, dataset.id, viewId))) throw notFound('View not found');
}

async function monitoredView(db: Db, dataset: DatasetRow, viewId: string): Promise<ViewRow> {
  const view = await findView(db, dataset.id, viewId);
  if (!view) throw notFound('View not found');
  if (!view.monitoring_enabled) throw invalid('Monitoring is not enabled for this view');
  return view;
}

/** The matches of each batch added since the view was saved. */
export async function savedViewTrend(db: Db, dataset: DatasetRow, viewId: string): Promise<ViewTrend> {
  const view = await monitoredView(db, dataset, viewId);
  return { view, points: await trendPoints(db, view.id) };
}

/** Alerting (notifications for new matches) is on or off; monitoring goes on either way. */
export async function setSavedViewAlerting(db: Db, dataset: DatasetRow, viewId: string, enabled: boolean): Promise<void> {
  const view = await monitoredView(db, dataset, viewId);
  await setAlerting(db, view.id, enabled);
}

/**
 * One monitored view's result on a batch: its trend point and running stats and, when it alerts and
 * found something, a notification to each of `audience.users`, in one transaction. Answers the
 * notifications sent (0 when the batch had been evaluated already).
 */
export async function recordViewResult(
  db: Db,
  view: ViewRow,
  evaluation: { batchId: string; count: number; stats: ViewRow['stats'] },
  audience: { users: string[]; datasetId: string; datasetName: string },
): Promise<number> {
  const { count, batchId } = evaluation;
  return db.transaction(async (trx) => {
    const recorded = await recordViewEvaluation(trx, view, evaluation);
    if (!recorded || !view.alerting_enabled || count === 0) return 0;
    await insertNotifications(
      trx,
      audience.users.map((userId) => ({
        user_id: userId,
        entity_type: 'saved_view',
        entity_id: view.id,
        title: '',
        message: `${count} new result${count === 1 ? '' : 's'} for view "${view.name}" in ${audience.datasetName}`,
        metadata: { view_name: view.name, dataset_name: audience.datasetName, result_count: count, batch_id: batchId, is_alert: true },
        dataset_id: audience.datasetId,
      })),
    );
    return audience.users.length;
  });
}
