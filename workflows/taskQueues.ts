/**
 * Workflows and I/O activities run on the main queue; CPU-heavy inference on `<main>-inference`
 * with bounded concurrency. The main queue name is configurable (TASK_QUEUE), so tests and
 * side-by-side deployments can share one Temporal namespace without picking up each other's work.
 */
export function taskQueues(main: string) {
  return { workflows: main, inference: inferenceQueueOf(main) };
}

export function inferenceQueueOf(main: string): string {
  return `${main}-inference`;
}
