import { CancellationScope } from '@temporalio/workflow';
import { embedding, enrichment, enrichmentModels, versions } from './activityProxies';
import type { EnrichmentInput } from './contracts';
import { indexMediaChunks } from './mediaChunks';
import { runTask } from './runTask';

/**
 * ENRICHMENT: the source's data is copied into a new dataset (no media bytes, no vectors), the
 * requested models run over the copy chunk by chunk (MEDIA_CHUNKS, across every worker), then its objects are
 * clustered (enrichDatasetMedia, which also runs the models over anything left), its new captions are embedded, and the copy is READY. The
 * source is READ ONLY meanwhile and gets its status back however the enrichment ends.
 */
export async function enrichmentWorkflow(input: EnrichmentInput): Promise<void> {
  const ref = { taskId: input.taskId, datasetId: input.datasetId };
  await runTask('ENRICHMENT', input, async () => {
    await enrichment.beginEnrichment(input);
    await versions.copyDatasetVersion({ sourceVersionId: input.sourceVersionId, targetDatasetId: input.datasetId, versionId: input.versionId });
    await enrichment.adoptEnrichedCopy(input);
    await indexMediaChunks({ ...ref, batchId: input.taskId, selection: { mediaOf: input.datasetId } });
    await enrichmentModels().enrichDatasetMedia(ref);
    await embedding().embedCaptions(ref);
    await CancellationScope.nonCancellable(() => enrichment.commitEnrichment(input));
  });
}
