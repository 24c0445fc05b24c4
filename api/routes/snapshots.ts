import { Router } from '@koa/router';
import { requireDataset } from '../../services/datasetAccess';
import { createSnapshot, deleteSnapshot, diffSnapshots, editSnapshot, listDatasetSnapshots, startClone, startRestore } from '../../services/snapshots';
import type { TaskDeps } from '../../services/taskWorkflows';
import { presentSnapshot } from '../presenters/snapshot';
import { answerAcceptedTask } from './acceptedTask';
import { mount } from '../routeSpec';
import { snapshotRoutes } from '../specs/snapshots';
import type { ApiState } from '../state';

/** Snapshots: frozen copies of a dataset's data, to restore over it or clone into a new dataset. */
export function createSnapshotsRouter(deps: TaskDeps): Router<ApiState> {
  const router = new Router<ApiState>();

  mount(router, snapshotRoutes.list, async (ctx) => {
    const dataset = await requireDataset(deps.db, ctx.state.input.params.dataset_id, ctx.state.user.id);
    ctx.body = (await listDatasetSnapshots(deps.db, dataset)).map(presentSnapshot);
  });

  mount(router, snapshotRoutes.create, async (ctx) => {
    const { params, body } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'snapshot');
    ctx.body = presentSnapshot(await createSnapshot(deps.db, dataset, ctx.state.user, body));
  });

  mount(router, snapshotRoutes.edit, async (ctx) => {
    const { params, body } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'snapshot');
    ctx.body = presentSnapshot(await editSnapshot(deps.db, dataset, params.snapshot_id, body));
  });

  mount(router, snapshotRoutes.delete, async (ctx) => {
    const { params } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'snapshot');
    await deleteSnapshot(deps.db, dataset, params.snapshot_id);
    ctx.status = 200;
    ctx.body = ''; // the spec's empty body (null would turn the status into 204)
  });

  mount(router, snapshotRoutes.restore, async (ctx) => {
    const { params } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'restore');
    answerAcceptedTask(ctx, await startRestore(deps, dataset, ctx.state.user, params.snapshot_id));
  });

  mount(router, snapshotRoutes.diff, async (ctx) => {
    const { params, query } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id);
    ctx.body = await diffSnapshots(deps.db, dataset, params.snapshot_id, params.other_id, query.limit);
  });

  mount(router, snapshotRoutes.clone, async (ctx) => {
    const { params } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'clone');
    answerAcceptedTask(ctx, await startClone(deps, dataset, ctx.state.user, params.snapshot_id));
  });

  return router;
}
