import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import type { Dataset } from '../../api/client';
import { refusalOf } from '../../api/offers';
import { ErrorMessage } from '../../components/ErrorMessage';
import { datasetKeys } from '../datasets/api';
import { taskKeys } from '../tasks/api';
import { enrichDataset, enrichmentQueries } from './api';
import { chooseModel, refusal, unchooseType, type Choice, type ModelType } from './modelChoice';

/**
 * The models of this installation by type (Active ones selectable, the rest disabled with their
 * status; choosing one chooses what it depends on), the enrichment already applied, and Enrich: a new
 * dataset `<name> (enriched)` made by an ENRICHMENT task, linked once started.
 */
export function EnrichPanel({ dataset }: { dataset: Dataset }) {
  const queryClient = useQueryClient();
  const [choice, setChoice] = useState<Choice>({});
  const models = useQuery(enrichmentQueries.models(dataset.id));
  const context = useQuery(enrichmentQueries.context(dataset.id, dataset.status_new));
  const enrich = useMutation({
    mutationFn: (request: Choice) => enrichDataset(dataset.id, request),
    onSuccess: () => setChoice({}),
    onSettled: () => Promise.all([datasetKeys.details, datasetKeys.list, taskKeys.all].map((queryKey) => queryClient.invalidateQueries({ queryKey }))),
  });

  const applied: Choice = (context.data?.dataset_enrichment_models.enrichment_models ?? {}) as Choice;
  const list = models.data ?? [];
  const available = new Set(list.filter((model) => model.status === 'Active').map((model) => model.type));
  const types = [...new Set(list.map((model) => model.type))];
  const chosen = Object.entries(choice) as [ModelType, string][];
  const refused = refusalOf(dataset, 'enrich');
  const neededBy = (type: ModelType) =>
    chosen.filter(([, id]) => list.find((model) => model.id === id)?.dependencies?.includes(type)).map(([dependent]) => dependent);

  return (
    <section className="card" aria-labelledby="enrich-title">
      <h2 id="enrich-title">Enrichment</h2>
      <ErrorMessage error={context.error} prefix="The enrichment context could not be read" />
      {context.data && (
        <p data-testid="enrichment-context">
          {Object.keys(applied).length === 0 ? (
            <>No model applied yet (context {context.data.status}).</>
          ) : (
            <>
              Applied ({context.data.status}):{' '}
              {Object.entries(applied).map(([type, id], index) => (
                <span key={type}>
                  {index > 0 && ', '}
                  <code>{type}</code> {id}
                </span>
              ))}
            </>
          )}
        </p>
      )}
      <ErrorMessage error={models.error} prefix="The enrichment models could not be listed" />
      {types.length > 0 && (
        <form
          aria-label="Enrich"
          onSubmit={(event) => {
            event.preventDefault();
            enrich.mutate(choice);
          }}
        >
          <div className="enrich-types">
            {types.map((type) => {
              const dependents = neededBy(type);
              return (
                <fieldset key={type} className="enrich-type" data-type={type}>
                  <legend>
                    <code>{type}</code>
                  </legend>
                  {applied[type] ? (
                    <div className="muted">applied: {applied[type]}</div>
                  ) : (
                    <label title={dependents.length > 0 ? `Needed by ${dependents.join(', ')}` : undefined}>
                      <input type="radio" name={`model-${type}`} checked={!choice[type]} disabled={dependents.length > 0} onChange={() => setChoice(unchooseType(list, applied, choice, type))} /> none
                      {dependents.length > 0 && <span className="muted"> (needed by {dependents.join(', ')})</span>}
                    </label>
                  )}
                  {list
                    .filter((model) => model.type === type)
                    .map((model) => {
                      const reason = refusal(model, applied, available);
                      return (
                        <label key={model.id} className={reason ? 'model disabled' : 'model'} title={reason ?? model.description} data-model-id={model.id}>
                          <input
                            type="radio"
                            name={`model-${type}`}
                            aria-label={`${model.name} (${model.id})`}
                            value={model.id}
                            checked={choice[type] === model.id}
                            disabled={reason !== undefined}
                            onChange={() => setChoice(chooseModel(list, applied, choice, model))}
                          />{' '}
                          {model.name} <span className="muted">{model.vendor}</span>{' '}
                          {model.status !== 'Active' && <span className="badge">{model.status}</span>}
                          {model.dependencies && model.dependencies.length > 0 && <span className="muted"> needs {model.dependencies.join(', ')}</span>}
                          <div className="muted">{model.description}</div>
                        </label>
                      );
                    })}
                </fieldset>
              );
            })}
          </div>
          <p>
            <button type="submit" disabled={Boolean(refused) || chosen.length === 0 || enrich.isPending} aria-describedby="enrich-reason">
              Enrich into a new dataset
            </button>{' '}
            <span className={refused ? 'reason' : 'muted'} id="enrich-reason">
              {refused ?? (chosen.length === 0 ? 'Choose at least one model.' : `${chosen.map(([type, id]) => `${type}: ${id}`).join(', ')}`)}
            </span>
          </p>
        </form>
      )}
      {enrich.data && (
        <p role="status">
          Enriching into a new dataset: <Link to={`/datasets/${enrich.data.dataset_id}`}>{dataset.display_name} (enriched)</Link>. This dataset is READ ONLY until the ENRICHMENT task ends.
        </p>
      )}
      <ErrorMessage error={enrich.error} prefix="Enrichment refused" />
    </section>
  );
}
