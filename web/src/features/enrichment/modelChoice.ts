// With its extension: the unit tests' typecheck (node16 resolution) reads this module too.
import type { components } from '../../api/schema.js';

type Model = components['schemas']['EnrichmentModel'];
export type ModelType = Model['type'];
/** The request: at most one model per type. */
export type Choice = Partial<Record<ModelType, string>>;

/** `choice` with `model` chosen for its type, and for each of its dependencies not applied nor chosen, that type's first Active model. */
export function chooseModel(models: readonly Model[], applied: Choice, choice: Choice, model: Model): Choice {
  const next: Choice = { ...choice, [model.type]: model.id };
  for (const dependency of model.dependencies ?? []) {
    if (applied[dependency] || next[dependency]) continue;
    const provider = models.find((candidate) => candidate.type === dependency && candidate.status === 'Active');
    if (provider) Object.assign(next, chooseModel(models, applied, next, provider));
  }
  return next;
}

/** `choice` without `type`, and without every chosen model that needed it (and was not served by an applied one). */
export function unchooseType(models: readonly Model[], applied: Choice, choice: Choice, type: ModelType): Choice {
  let next: Choice = { ...choice };
  delete next[type];
  for (const [dependent, id] of Object.entries(next) as [ModelType, string][]) {
    const model = models.find((candidate) => candidate.id === id);
    if (model?.dependencies?.includes(type) && !applied[type]) next = unchooseType(models, applied, next, dependent);
  }
  return next;
}

/** Why a model cannot be chosen, if it cannot. */
export function refusal(model: Model, applied: Choice, available: ReadonlySet<ModelType>): string | undefined {
  if (model.status !== 'Active') return `${model.status}: not available on this installation yet`;
  if (applied[model.type]) return `${model.type} is already applied (${applied[model.type]})`;
  const missing = (model.dependencies ?? []).filter((dependency) => !applied[dependency] && !available.has(dependency));
  if (missing.length > 0) return `Needs ${missing.join(', ')}, which no Active model provides`;
  return undefined;
}
