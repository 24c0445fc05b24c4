import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { labelQueries } from './api';

/**
 * Explore's class facet: each class of the user's labels with its count; a click adds it to (or takes
 * it off) the filter, several classes match any of them.
 */
export function ClassFacet({ datasetId, selected, onChange }: { datasetId: string; selected: string[]; onChange(classes: string[] | undefined): void }) {
  const classes = useQuery(labelQueries.classes(datasetId));
  if (!classes.data) return null;
  if (!classes.data.label_field) {
    return (
      <p className="muted" data-testid="class-facet">
        Class: no label field declared (<Link to={`/datasets/${datasetId}/labels`}>Labels</Link>).
      </p>
    );
  }
  const toggle = (label: string) => {
    const next = selected.includes(label) ? selected.filter((picked) => picked !== label) : [...selected, label];
    onChange(next.length > 0 ? next : undefined);
  };
  return (
    <div className="class-facet" role="group" aria-label="Class" data-testid="class-facet">
      <span>
        Class <span className="muted">({classes.data.label_field})</span>
      </span>
      {classes.data.classes.map((entry) => (
        <button key={entry.label} type="button" className="facet" aria-pressed={selected.includes(entry.label)} data-class={entry.label} onClick={() => toggle(entry.label)}>
          {entry.label} <span className="facet-count">{entry.count.toLocaleString('en')}</span>
        </button>
      ))}
      {classes.data.unlabelled > 0 && <span className="muted">{classes.data.unlabelled.toLocaleString('en')} without a class</span>}
      {selected.length > 0 && (
        <button type="button" className="link-button" onClick={() => onChange(undefined)}>
          Any class
        </button>
      )}
    </div>
  );
}
