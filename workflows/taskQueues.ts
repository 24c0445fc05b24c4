/** Workflows and I/O activities share one queue; CPU-heavy inference has its own with bounded concurrency. */
export const TASK_QUEUES = {
  workflows: 'media-workflows',
  inference: 'media-inference',
} as const;
