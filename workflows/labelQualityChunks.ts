import { patched } from '@temporalio/workflow';
import pLimit from 'p-limit';
import type { LabelQualitySummary } from '../services/labelQuality';
import { labelChunks, labelQuality } from './activityProxies';
import type { LabelCheckInput } from './contracts';

/** Patch id of the check spread over workers: workflows that started before it keep the one-activity check. */
export const LABEL_CHUNKS_PATCH = 'label-quality-chunks';

/**
 * A label-quality check as fan-out: neighbour-search chunks of the labelled images, `concurrency` at a time, that
 * every worker on the queue takes (a killed worker loses only the chunks it held), then one step that scores them
 * all and writes the issues and the report. Null when there is nothing to check (no declared or folder labels).
 */
export async function checkLabelsInChunks(input: LabelCheckInput): Promise<LabelQualitySummary | null> {
  const plan = await labelQuality.planLabelChunks(input);
  if (!plan) return null;
  const { chunks, concurrency, ...rest } = plan;
  const step = { ...rest, chunks: chunks.length };
  const limit = pLimit(concurrency);
  await Promise.all(chunks.map((chunk) => limit(() => labelChunks.checkLabelChunk({ ...step, chunk }))));
  return labelQuality.aggregateLabelQuality(step);
}

/** After a full index or an import: the declared labels checked again (spread over workers, unless the workflow predates that). */
export async function recheckLabels(ref: { taskId: string; datasetId: string }): Promise<void> {
  if (patched(LABEL_CHUNKS_PATCH)) await checkLabelsInChunks({ ...ref, fields: { declared: true }, stage: 'analyze' });
  else await labelQuality.recheckLabelQuality(ref);
}
