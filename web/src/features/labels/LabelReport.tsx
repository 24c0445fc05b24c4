import { Link } from 'react-router';
import { issueExploreUrl, type LabelQualityReport } from './api';
import { ClassChart, percent } from './ClassChart';

/** The label-quality report: classes (chart and table), the most confused pairs and leakage per split pair, each row linking to Explore filtered to its media. */
export function LabelReport({ datasetId, report }: { datasetId: string; report: LabelQualityReport }) {
  const explore = issueExploreUrl.bind(null, datasetId);
  return (
    <section className="card" aria-labelledby="label-report-title" data-testid="label-report">
      <h2 id="label-report-title">Label quality</h2>
      <p>
        Labels from <code>{report.label_field}</code>
        {report.split_field && (
          <>
            , splits from <code>{report.split_field}</code>
          </>
        )}
        , checked {new Date(report.checked_at).toLocaleString()}: {report.n_labelled} of {report.n_media} images labelled,{' '}
        <Link to={explore('mislabel', {})}>{report.n_flagged} likely mislabelled</Link>, estimated error rate {percent(report.estimated_error_rate)}.
      </p>

      <h3>Classes at the check</h3>
      <ClassChart classes={report.classes} />
      <div className="table-scroll">
        <table aria-label="Label quality per class">
          <thead>
            <tr>
              <th scope="col">Class</th>
              <th scope="col">Images</th>
              <th scope="col">Flagged</th>
              <th scope="col">Est. error</th>
            </tr>
          </thead>
          <tbody>
            {report.classes.map((entry) => (
              <tr key={entry.label}>
                <th scope="row">{entry.label}</th>
                <td>{entry.count}</td>
                <td>{entry.flagged > 0 ? <Link to={explore('mislabel', { label: [entry.label] })} aria-label={`${entry.flagged} flagged ${entry.label}`}>{entry.flagged}</Link> : 0}</td>
                <td>{percent(entry.estimated_error_rate)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>

      <h3>Most confused</h3>
      {report.confused_pairs.length === 0 ? (
        <p className="muted">No label was flagged.</p>
      ) : (
        <ul aria-label="Most confused class pairs">
          {report.confused_pairs.map((pair) => (
            <li key={`${pair.label}→${pair.suggested_label}`}>
              <Link to={explore('mislabel', { label: [pair.label], suggested_label: [pair.suggested_label] })}>
                {pair.count} labelled {pair.label}, looking like {pair.suggested_label}
              </Link>
            </li>
          ))}
        </ul>
      )}

      <h3>Leakage across splits</h3>
      {!report.split_field ? (
        <p className="muted">No split field declared, so leakage was not checked.</p>
      ) : report.leakage.by_splits.length === 0 ? (
        <p className="muted">No near-duplicates in different splits.</p>
      ) : (
        <ul aria-label="Leakage per split pair">
          {report.leakage.by_splits.map(({ splits, pairs }) => (
            <li key={splits.join('|')}>
              <Link to={explore('leakage', { split: splits, duplicate_split: splits })}>
                {pairs} near-duplicate {pairs === 1 ? 'pair' : 'pairs'} across {splits[0]} and {splits[1]}
              </Link>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
