import { continueAsNew, executeChild, workflowInfo } from '@temporalio/workflow';
import pLimit from 'p-limit';
import { embedding, enrichmentModels, ingest } from './activityProxies';
import type { MediaChunksInput } from './contracts';

/**
 * MEDIA_CHUNKS: decodes, then embeds, the selected files chunk by chunk (or enriches the selected media). Chunks run `concurrency` at a time and
 * every worker on the queues takes them, so one dataset uses them all; a chunk's embedding (inference queue)
 * overlaps the next chunks' decoding. Each run does one window of chunks and continues as new after it, so the
 * history stays bounded however many files there are.
 */
export async function mediaChunksWorkflow(input: MediaChunksInput): Promise<void> {
  const { taskId, datasetId, batchId, selection } = input;
  const chunksDone = input.chunksDone ?? 0;
  const plan = await ingest.planMediaChunks({ selection, after: input.after ?? null, chunksDone });
  const chunks = chunksDone + plan.remaining;
  const limit = pLimit(plan.concurrency);
  await Promise.all(
    plan.chunks.map((chunk) =>
      limit(async () => {
        const step = { taskId, datasetId, batchId, selection, chunk, chunks };
        if ('mediaOf' in selection) {
          await enrichmentModels().enrichChunk(step);
        } else {
          await ingest.ingestChunk(step);
          await embedding().embedChunk(step);
        }
      }),
    ),
  );
  if (plan.remaining > plan.chunks.length) {
    await continueAsNew<typeof mediaChunksWorkflow>({ ...input, after: plan.chunks[plan.chunks.length - 1].last, chunksDone: chunksDone + plan.chunks.length });
  }
}

/** Runs MEDIA_CHUNKS as a child of the calling task's workflow: the files' work, with a history of its own. */
export async function indexMediaChunks(input: Omit<MediaChunksInput, 'after' | 'chunksDone'>): Promise<void> {
  await executeChild(mediaChunksWorkflow, { workflowId: `${workflowInfo().workflowId}-media`, args: [input] });
}
