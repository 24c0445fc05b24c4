import { randomUUID } from 'node:crypto';
import type { Db } from '../db/connection';
import type { User } from '../db/models';
import { createDataset, datasetNamesStartingWith, requireDatasetTransition, transitionDatasetStatus, updateDatasetCounts, type DatasetRow } from '../db/repositories/datasets';
import { enrichmentContextOf, markEnriched, markEnrichedFrom, resetEnriched, setEnrichmentModels } from '../db/repositories/enrichment';
import { mediaCounts } from '../db/repositories/media';
import { updateTaskProgress } from '../db/repositories/tasks';
import { dropUnusedVersions, findVersion, headVersion, setHeadVersion, type DatasetVersion } from '../db/repositories/versions';
import { releaseTransition, TRANSITIONS, type DatasetStatus } from '../lib/datasetStates';
import { APPLY_ORDER, type EnrichmentModel, type EnrichmentType, type ModelAvailability } from '../lib/enrichment/catalog';
import { conflict, notFound } from '../lib/errors';
import type { EnrichmentInput } from '../workflows/contracts';
import { claimDatasetFor } from './datasetStates';
import { enrichmentModels } from './enrichmentModels';
import type { EnrichBatch, ModelRun } from './enrichmentModels/plugin';
import { requireCreatorWorkspace } from './ingestion';
import { createTask, type TaskDeps } from './taskWorkflows';
import { commitTaskEnd, completeTask } from './taskTypes';

export interface EnrichmentDeps extends TaskDeps {
  /** What is installed here, read once per request (a model dropped into MODELS_DIR shows up without a restart). */
  availability: () => ModelAvailability;
}

export function listEnrichmentModels(deps: Pick<EnrichmentDeps, 'availability'>): EnrichmentModel[] {
  return enrichmentModels(deps.availability());
}

export interface EnrichmentContext {
  enrichment_context_id: string;
  status: 'NEW' | 'ENRICHED';
  dataset_enrichment_models: { enrichment_models: Record<string, string> };
}

export async function enrichmentContext(deps: Pick<TaskDeps, 'db'>, dataset: DatasetRow): Promise<EnrichmentContext> {
  const { contextId, models } = await enrichmentContextOf(deps.db, dataset.id);
  return {
    enrichment_context_id: contextId,
    status: Object.keys(models).length === 0 ? 'NEW' : 'ENRICHED',
    dataset_enrichment_models: { enrichment_models: models },
  };
}

/**
 * Checks a request against the catalog and what the dataset already has: every model must exist
 * under its type and be Active, not be applied already, and find its dependencies applied before or
 * requested with it. Returns the enrichment the copy will carry (applied + requested).
 */
function planEnrichment(catalog: EnrichmentModel[], applied: Record<string, string>, requested: Partial<Record<EnrichmentType, string>>): Record<string, string> {
  for (const [type, modelId] of Object.entries(requested) as Array<[EnrichmentType, string]>) {
    const model = catalog.find((candidate) => candidate.id === modelId);
    if (!model) throw notFound(`Enrichment model ${modelId} not found`);
    if (model.type !== type) throw notFound(`Enrichment model ${modelId} is a ${model.type} model, not ${type}`);
    if (model.status !== 'Active') throw conflict(`Enrichment model ${modelId} is ${model.status}: it cannot be applied on this installation`);
    if (applied[type] === modelId) throw conflict(`${type} is already applied to this dataset with ${modelId}`);
    const missing = (model.dependencies ?? []).filter((dependency) => !applied[dependency] && !requested[dependency]);
    if (missing.length > 0) throw conflict(`${modelId} needs ${missing.join(' and ')} applied first (or requested with it)`);
  }
  return { ...applied, ...requested };
}

/** `<name> (enriched)`, or `<name> (enriched 2)`, `3`, … when the workspace has that name already (the source enriched again). */
async function enrichedCopyName(db: Db, workspaceId: string, sourceName: string): Promise<string> {
  const base = `${sourceName} (enriched`;
  const taken = new Set(await datasetNamesStartingWith(db, workspaceId, base));
  for (let n = 1; ; n++) {
    const name = n === 1 ? `${base})` : `${base} ${n})`;
    if (!taken.has(name)) return name;
  }
}

/**
 * Starts an ENRICHMENT: a new dataset `<name> (enriched)` owned by the caller, INDEXING until the
 * models have run over a copy of the source; the source is claimed READ ONLY meanwhile. Returns the
 * new dataset's id.
 */
export async function startEnrichment(
  deps: EnrichmentDeps,
  dataset: DatasetRow,
  user: User,
  requested: Partial<Record<EnrichmentType, string>>,
): Promise<string> {
  const catalog = listEnrichmentModels(deps);
  planEnrichment(catalog, (await headVersion(deps.db, dataset.id)).enrichment_models, requested);
  const workspaceId = await requireCreatorWorkspace(deps.db, user);
  const enrichedId = randomUUID();
  let previousStatus: DatasetStatus = dataset.status_new;
  let sourceVersionId = '';
  let enrichmentModelsOfCopy: Record<string, string> = {};
  const applied = APPLY_ORDER.filter((type) => requested[type]).join(', ');
  await createTask(
    deps,
    {
      taskType: 'ENRICHMENT',
      datasetId: enrichedId,
      user,
      statusMessage: `Queued: ${applied} on ${dataset.display_name}`,
      input: (taskId): EnrichmentInput => ({
        taskId,
        datasetId: enrichedId,
        sourceDatasetId: dataset.id,
        sourceVersionId,
        versionId: randomUUID(),
        enrichmentModels: enrichmentModelsOfCopy,
        sourcePreviousStatus: previousStatus,
      }),
    },
    async (trx) => {
      previousStatus = await claimDatasetFor(trx, dataset, 'enrich');
      // Read under the claim: nothing changes the source from here until the copy is made.
      const source = await headVersion(trx, dataset.id);
      sourceVersionId = source.id;
      enrichmentModelsOfCopy = planEnrichment(catalog, source.enrichment_models, requested);
      await createDataset(trx, {
        id: enrichedId,
        name: await enrichedCopyName(trx, workspaceId, dataset.display_name),
        ownerId: user.id,
        workspaceId,
        status: 'INDEXING',
        embeddingConfig: dataset.embedding_config,
      });
      await markEnrichedFrom(trx, enrichedId, dataset.id);
    },
    async (db) => {
      await transitionDatasetStatus(db, enrichedId, TRANSITIONS.enrichmentFailed, { error_message: 'The enrichment could not be started' });
      await transitionDatasetStatus(db, dataset.id, releaseTransition('enrich', previousStatus));
    },
  );
  return enrichedId;
}

/** The task RUNNING, copying the source. */
export async function beginEnrichment(db: Db, input: EnrichmentInput): Promise<void> {
  await updateTaskProgress(db, input.taskId, { status: 'RUNNING', statusMessage: 'Copying the source dataset', progressPercentage: 5, phase: 'copy' });
}

/** The copy becomes the new dataset's head, recording every enrichment applied to it (the source's and this one's). */
export async function adoptEnrichedCopy(db: Db, input: EnrichmentInput): Promise<void> {
  const source = await findVersion(db, input.sourceVersionId);
  const replaced = Object.keys(input.enrichmentModels).filter((type) => source?.enrichment_models[type] !== input.enrichmentModels[type]);
  await db.transaction(async (trx) => {
    await setHeadVersion(trx, input.datasetId, input.versionId);
    await setEnrichmentModels(trx, input.versionId, input.enrichmentModels);
    await resetEnriched(trx, input.versionId, replaced);
  });
  await dropUnusedVersions(db, input.datasetId);
}

/** The enriched copy READY with its counts, the source back to its status, the task COMPLETED. */
export async function commitEnrichment(db: Db, input: EnrichmentInput): Promise<void> {
  await commitTaskEnd(db, input.datasetId, async (trx) => {
    await updateDatasetCounts(trx, input.datasetId, await mediaCounts(trx, input.versionId));
    await requireDatasetTransition(trx, input.sourceDatasetId, releaseTransition('enrich', input.sourcePreviousStatus));
    await completeTask(trx, input, TRANSITIONS.enrichmentCommitted, 'Enriched dataset ready', { progress: 100 });
  });
}

/** One model's output on a batch and the batch's "done" mark, in one transaction: a retried activity resumes without repeating work. */
export async function writeEnrichedBatch<Output>(
  db: Db,
  step: { version: DatasetVersion; type: EnrichmentType; run: ModelRun<Output>; batch: EnrichBatch; output: Output },
): Promise<void> {
  await db.transaction(async (trx) => {
    await step.run.write(trx, step.version, step.batch, step.output);
    await markEnriched(trx, step.version.id, step.type, step.batch.map((media) => media.id));
  });
}
