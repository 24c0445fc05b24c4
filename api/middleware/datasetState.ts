import type { Middleware } from 'koa';
import type { DatasetOperation } from '../../lib/datasetStates';
import { visibleDataset } from '../../services/datasetAccess';
import { requireStatusFor } from '../../services/datasetStates';

/**
 * A route's declared write (its spec's `datasetState`), asked of the state machine before the handler runs: a
 * dataset the user can see in a status the operation may not start from answers 409 with the reason. A dataset the
 * user cannot see is left to the handler (its 404 or 403), so the status of another's dataset is never told.
 */
export function refuseWriteInStatus(operation: DatasetOperation): Middleware {
  return async (ctx, next) => {
    const datasetId = (ctx.state.input?.params as { dataset_id?: string } | undefined)?.dataset_id;
    const user = ctx.state.user as { id: string } | undefined;
    if (datasetId && user) {
      const dataset = await visibleDataset(ctx.db, datasetId, user.id);
      if (dataset) requireStatusFor(dataset, operation);
    }
    return next();
  };
}
