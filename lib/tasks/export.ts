import { defineTask, type TaskRef } from './defineTask';

/** One version of a dataset packaged into a ZIP in the object store; followed through export_status, not GET /tasks. */
export const exportTask = defineTask({
  type: 'EXPORT',
  // An export claims nothing: it reads the version as it was when requested (docs/decisions.md).
  operation: { name: 'export', from: ['READY'] },
  workflow: 'exportWorkflow',
  listed: false,
  // The task alone ends: nothing else was claimed, and nothing partial was stored.
  endsUnfinished: (_input: TaskRef): [] => [],
});
