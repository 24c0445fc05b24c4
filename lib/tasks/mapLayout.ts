import { defineTask, type TaskRef } from './defineTask';

/**
 * The map of an analysed version laid out (UMAP of a sample, the rest placed from their neighbours), started by the
 * task that analysed it once its dataset is READY; the Map says "being laid out" meanwhile. Claims nothing.
 */
export const mapLayoutTask = defineTask({
  type: 'MAP_LAYOUT',
  operation: { name: 'lay_out_map', from: ['READY', 'PARTIAL INDEX'] },
  workflow: 'mapLayoutWorkflow',
  stages: { map: [0, 100] },
  // Followed through GET …/map (layout_status), as exports are through export_status.
  listed: false,
  // The dataset stays as it is; its Map says the layout failed (a reindex lays it out again).
  endsUnfinished: (_input: TaskRef & { byTaskId: string }): [] => [],
});
