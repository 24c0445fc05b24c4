import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ClassFacet } from '../labels/ClassFacet';
import { tagQueries } from '../selection/api';
import { ISSUE_TYPES, toVql, type IssueType, type VqlControls } from './vql';

/**
 * Explore's filters built from controls; the VQL they make is shown as text (and can be copied into an
 * API call). A map region (a lasso on the map) shows as a chip that can be removed; `mapPoints` is how
 * many points the lasso held, when the map said so.
 */
export function VqlFilters({ datasetId, controls, mapPoints, onChange }: { datasetId: string; controls: VqlControls; mapPoints?: number; onChange(next: VqlControls): void }) {
  const [text, setText] = useState(controls.text ?? '');
  const [labels, setLabels] = useState((controls.labels ?? []).join(', '));
  const tags = useQuery(tagQueries.list(datasetId));
  const set = (change: Partial<VqlControls>) => onChange({ ...controls, ...change });
  const vql = toVql(controls);

  return (
    <fieldset className="card vql" aria-label="Filters">
      <legend>Filters</legend>
      <div className="inline-form">
        <label>
          Issue{' '}
          <select aria-label="Issue" value={controls.issue ?? ''} onChange={(event) => set({ issue: (event.target.value || undefined) as IssueType | undefined, issueDetails: undefined })}>
            <option value="">any</option>
            {ISSUE_TYPES.map((issue) => (
              <option key={issue}>{issue}</option>
            ))}
          </select>
        </label>
        {controls.issueDetails && (
          <span data-testid="issue-details">
            where{' '}
            {Object.entries(controls.issueDetails)
              .map(([field, values]) => `${field.replace('_', ' ')} is ${values.join(' or ')}`)
              .join(', ')}{' '}
            <button type="button" onClick={() => set({ issueDetails: undefined })}>
              Any {controls.issue}
            </button>
          </span>
        )}
        <label>
          <input type="checkbox" checked={controls.duplicates !== undefined} onChange={(event) => set({ duplicates: event.target.checked ? 0.9 : undefined })} /> Duplicates, similarity ≥{' '}
          <input
            type="range"
            aria-label="Duplicate similarity"
            min={0.5}
            max={1}
            step={0.01}
            disabled={controls.duplicates === undefined}
            value={controls.duplicates ?? 0.9}
            onChange={(event) => set({ duplicates: Number(event.target.value) })}
          />{' '}
          {(controls.duplicates ?? 0.9).toFixed(2)}
        </label>
        <label>
          <input type="checkbox" checked={controls.uniqueness !== undefined} onChange={(event) => set({ uniqueness: event.target.checked ? 0.5 : undefined })} /> Uniqueness ≥{' '}
          <input
            type="range"
            aria-label="Uniqueness"
            min={0}
            max={1}
            step={0.01}
            disabled={controls.uniqueness === undefined}
            value={controls.uniqueness ?? 0.5}
            onChange={(event) => set({ uniqueness: Number(event.target.value) })}
          />{' '}
          {(controls.uniqueness ?? 0.5).toFixed(2)}
        </label>
      </div>
      {controls.map && (
        <p className="filter-chip" data-testid="map-region-chip">
          <Link to={`/datasets/${datasetId}/map`}>Map region</Link>
          {mapPoints !== undefined ? ` (${mapPoints.toLocaleString()} point${mapPoints === 1 ? '' : 's'})` : ' (a lasso on the map)'}{' '}
          <button type="button" aria-label="Remove the map region" onClick={() => set({ map: undefined })}>
            ×
          </button>
        </p>
      )}
      <ClassFacet datasetId={datasetId} selected={controls.classes ?? []} onChange={(classes) => set({ classes })} />
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          const list = labels.split(',').map((label) => label.trim()).filter(Boolean);
          set({ text: text.trim() || undefined, labels: list.length > 0 ? list : undefined });
        }}
      >
        <input aria-label="Keywords" placeholder="Caption keywords" value={text} onChange={(event) => setText(event.target.value)} />
        <input aria-label="Model labels" title="Labels a model gave (image tagging)" placeholder="Model labels, comma-separated" value={labels} onChange={(event) => setLabels(event.target.value)} />
        <button type="submit">Apply</button>
        {tags.data && tags.data.tags.length > 0 && (
          <select
            multiple
            aria-label="Tags"
            value={controls.tags ?? []}
            onChange={(event) => set({ tags: Array.from(event.target.selectedOptions, (option) => option.value) })}
          >
            {tags.data.tags.map((tag) => (
              <option key={tag.id} value={tag.id}>
                {tag.name}
              </option>
            ))}
          </select>
        )}
        {vql.length > 0 && (
          <button
            type="button"
            onClick={() => {
              setText('');
              setLabels('');
              onChange({});
            }}
          >
            Clear filters
          </button>
        )}
      </form>
      <p className="muted">
        VQL: <code data-testid="vql-text">{vql.length > 0 ? JSON.stringify(vql) : 'none'}</code>
      </p>
    </fieldset>
  );
}
