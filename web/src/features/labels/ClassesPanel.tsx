import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ApiError, type Dataset } from '../../api/client';
import { ErrorMessage } from '../../components/ErrorMessage';
import { acceptSuggestions, CLASS_CHANGE_KEYS, classExploreUrl, FLAGGED_READ, issueExploreUrl, labelQueries, undoClassChange, type Classes } from './api';
import { classWriteBlocked, imageCount } from './classWrites';

/**
 * The classes of the user's labels as they are now (counts from GET …/classes, each linking to Explore),
 * accepting the label check's suggestions above a chosen score, and Undo of the latest change of classes.
 */
export function ClassesPanel({ dataset, classes }: { dataset: Dataset; classes: Classes }) {
  const queryClient = useQueryClient();
  const [minScore, setMinScore] = useState(0.5);
  const flagged = useQuery(labelQueries.flagged(dataset.id));
  const refresh = () => Promise.all(CLASS_CHANGE_KEYS.map((key) => queryClient.invalidateQueries({ queryKey: [key] })));
  const accept = useMutation({ mutationFn: () => acceptSuggestions(dataset.id, minScore), onSettled: refresh });
  const undo = useMutation({ mutationFn: () => undoClassChange(dataset.id), onSettled: refresh });
  // The page reports the later of the two.
  const undoneLast = undo.submittedAt > accept.submittedAt;

  const blocked = classWriteBlocked(dataset, classes.label_field);
  const scores = flagged.data?.scores ?? [];
  const matching = scores.filter((score) => score >= minScore).length;
  // Scores are read for the first FLAGGED_READ flagged items only (and for the previews Explore lists).
  const partial = flagged.data !== undefined && scores.length < flagged.data.total;
  const busy = accept.isPending || undo.isPending;
  const nothingToUndo = undo.error instanceof ApiError && undo.error.status === 404;
  return (
    <section className="card" aria-labelledby="classes-title" data-testid="classes-panel">
      <h2 id="classes-title">Classes</h2>
      <p>
        Each image’s class, from <code>{classes.label_field}</code>
        {classes.unlabelled > 0 && <>; {imageCount(classes.unlabelled)} without a class</>}.
      </p>
      <div className="table-scroll">
        <table aria-label="Classes">
          <thead>
            <tr>
              <th scope="col">Class</th>
              <th scope="col">Images</th>
            </tr>
          </thead>
          <tbody>
            {classes.classes.map((entry) => (
              <tr key={entry.label} data-class={entry.label}>
                <th scope="row">{entry.label}</th>
                <td>
                  <Link to={classExploreUrl(dataset.id, [entry.label])} aria-label={`${entry.count} ${entry.label} in Explore`}>
                    {entry.count.toLocaleString('en')}
                  </Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>

      <h3>Accept suggestions</h3>
      <ErrorMessage error={flagged.error} prefix="The flagged items could not be read" />
      {flagged.isPending && <p className="muted">Reading the flagged items…</p>}
      {flagged.data && (
        <form
          className="inline-form"
          aria-label="Accept suggestions"
          onSubmit={(event) => {
            event.preventDefault();
            accept.mutate();
          }}
        >
          <p data-testid="flagged-count">
            <Link to={issueExploreUrl(dataset.id, 'mislabel', {})}>{imageCount(flagged.data.total)} flagged</Link> as likely mislabelled by the label check.
          </p>
          <label>
            Score ≥{' '}
            <input type="range" aria-label="Least score" min={0} max={1} step={0.05} value={minScore} onChange={(event) => setMinScore(Number(event.target.value))} /> {minScore.toFixed(2)}
          </label>
          <span data-testid="suggestions-count">
            {partial ? 'at least ' : ''}
            {imageCount(matching)} at this score
            {partial && ` (scores read for ${scores.length} of the ${flagged.data.total.toLocaleString('en')}, at most ${FLAGGED_READ})`}
          </span>
          <button type="submit" disabled={busy || blocked !== undefined || matching === 0}>
            Accept {partial ? 'these' : matching} suggestions
          </button>
          {blocked ? <span className="muted">{blocked}</span> : matching === 0 && <span className="muted">No flagged item at this score.</span>}
        </form>
      )}
      <p className="inline-form">
        <button type="button" disabled={busy || blocked !== undefined} onClick={() => undo.mutate()}>
          Undo the last change of classes
        </button>
        <span className="muted">A set, an accepted suggestion or a propagation, by anyone; again for the one before.</span>
      </p>
      {accept.data && !undoneLast && (
        <p role="status" data-testid="classes-result">
          Suggestions accepted: {imageCount(accept.data.changed)} changed.
        </p>
      )}
      {undo.data && undoneLast && (
        <p role="status" data-testid="classes-result">
          Undone ({undo.data.action}): {imageCount(undo.data.undone)} put back.
        </p>
      )}
      {undoneLast && (nothingToUndo ? <p role="status">Nothing to undo.</p> : <ErrorMessage error={undo.error} prefix="The undo failed" />)}
      {!undoneLast && <ErrorMessage error={accept.error} prefix="The suggestions could not be accepted" />}
    </section>
  );
}
