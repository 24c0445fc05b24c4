import { useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { ErrorMessage } from '../components/ErrorMessage';
import { Pager } from '../components/Pager';
import { useUrlState } from '../urlState';
import { AcceptAllPreview } from '../features/duplicates/AcceptAllPreview';
import { undoAcceptAll, type AcceptResult, type MergeConflict } from '../features/duplicates/api';

type Group = components['schemas']['DuplicateGroup'];
type Member = Group['members'][number];
type ReviewState = 'open' | 'decided' | 'all';

const PAGE_SIZE = 50;
const STATES: Array<[ReviewState, string]> = [
  ['open', 'To review'],
  ['decided', 'Decided'],
  ['all', 'All'],
];

const fileSize = (bytes: number | null) => (bytes === null ? 'size unknown' : bytes < 1_000_000 ? `${Math.round(bytes / 1000)} kB` : `${(bytes / 1_000_000).toFixed(2)} MB`);
const resolution = (member: Member) => (member.width && member.height ? `${member.width}×${member.height}` : 'resolution unknown');
const conflictText = (conflict: MergeConflict) =>
  `${conflict.kind === 'class' ? 'class' : conflict.field}: kept ${conflict.kept === null ? 'none' : JSON.stringify(conflict.kept)}, discarded ${conflict.discarded.map((entry) => JSON.stringify(entry.value)).join(', ')}`;
const ROLE_TEXT: Record<NonNullable<Member['role']>, string> = { keep: 'kept', discard: 'discarded', distinct: 'not a duplicate' };

/**
 * Near-duplicate groups: each member's resolution, size and issues, a suggested keeper with its
 * reasons, and decisions that are stored with the dataset (they survive new batches, reindexing and
 * snapshots) and can be undone. Accept all suggestions shows what it will decide first, and is undone at once.
 */
export function DuplicatesPage() {
  const { datasetId = '' } = useParams();
  const [params, change] = useUrlState();
  const similarity = Math.min(1, Math.max(0.9, Number(params.get('similarity')) || 0.9));
  const state = (STATES.find(([value]) => value === params.get('state'))?.[0] ?? 'open') as ReviewState;
  const page = Math.max(0, Number(params.get('page')) || 0);
  const queryClient = useQueryClient();
  const review = useQuery({
    queryKey: ['duplicates', datasetId, similarity, state, page],
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v1/dataset/{dataset_id}/duplicates', {
          params: { path: { dataset_id: datasetId }, query: { similarity, state, page_number: page, page_size: PAGE_SIZE } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  const [confirming, setConfirming] = useState(false);
  const [accepted, setAccepted] = useState<AcceptResult | null>(null);
  const undoAll = useMutation({
    mutationFn: (actionId: string) => undoAcceptAll(datasetId, actionId),
    onSuccess: () => setAccepted(null),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['duplicates', datasetId] }),
  });
  const counts = review.data?.counts;
  const waiting = counts ? counts.open + counts.changed : 0;

  return (
    <>
      <p>
        <Link to="/">Datasets</Link> › <Link to={`/datasets/${datasetId}`}>Dataset</Link> › Duplicates
      </p>
      <h1>Duplicates</h1>
      <p className="muted">
        Images whose similarity is at least the value below are grouped. Decisions are kept with the dataset: they survive new media, reindexing and
        snapshots. Discarded copies are left out of exports.
      </p>
      <div className="toolbar">
        <label>
          Similarity ≥ <strong data-testid="similarity-value">{similarity.toFixed(2)}</strong>{' '}
          <input type="range" aria-label="Similarity" min={0.9} max={1} step={0.01} value={similarity} onChange={(event) => change({ similarity: event.target.value })} />
        </label>
        <fieldset className="segmented">
          <legend className="visually-hidden">Groups to show</legend>
          {STATES.map(([value, label]) => (
            <label key={value}>
              <input type="radio" name="review-state" checked={state === value} onChange={() => change({ state: value })} /> {label}
              {counts && value === 'open' && ` (${waiting})`}
              {counts && value === 'decided' && ` (${counts.decided})`}
            </label>
          ))}
        </fieldset>
        {!confirming && (
          <button type="button" disabled={waiting === 0} onClick={() => setConfirming(true)}>
            Accept all suggestions
          </button>
        )}
        {waiting === 0 && counts && <span className="muted">No group waits for a decision.</span>}
      </div>
      {confirming && (
        <AcceptAllPreview
          datasetId={datasetId}
          similarity={similarity}
          onClose={() => setConfirming(false)}
          onAccepted={(result) => {
            setConfirming(false);
            setAccepted(result);
          }}
        />
      )}
      {accepted && (
        <div className="card" role="region" aria-label="Accept all result">
          <p role="status">
            Decided {accepted.decided_groups} group{accepted.decided_groups === 1 ? '' : 's'}; {accepted.discarded_media} cop
            {accepted.discarded_media === 1 ? 'y' : 'ies'} discarded.
            {accepted.merged.labels + accepted.merged.tags + accepted.merged.metadata_fields > 0 &&
              ` Keepers gained ${accepted.merged.labels} labels, ${accepted.merged.tags} tags and ${accepted.merged.metadata_fields} metadata fields.`}
          </p>
          {accepted.conflict_count > 0 && (
            <>
              <p>{accepted.conflict_count} conflicting value{accepted.conflict_count === 1 ? '' : 's'} left as the keeper had them:</p>
              <ul aria-label="Conflicts">
                {accepted.conflicts.map((conflict) => (
                  <li key={`${conflict.keeper_media_id}-${conflict.field}`}>{conflictText(conflict)}</li>
                ))}
              </ul>
            </>
          )}
          <button type="button" disabled={undoAll.isPending} onClick={() => undoAll.mutate(accepted.action_id)}>
            Undo accept all
          </button>
          <ErrorMessage error={undoAll.error} prefix="The undo failed" />
        </div>
      )}
      <ErrorMessage error={review.error} prefix="The duplicates could not be loaded" />
      {review.isPending && <p>Loading…</p>}
      {review.data?.groups.length === 0 && <p>No group here at this similarity.</p>}
      <ul className="dup-groups" aria-label="Duplicate groups">
        {review.data?.groups.map((group) => <DuplicateGroup key={`${group.group_id}-${group.state}`} datasetId={datasetId} group={group} />)}
      </ul>
      <Pager
        label="Duplicate pages"
        page={page}
        hasNext={(page + 1) * PAGE_SIZE < (review.data?.total ?? 0)}
        summary={`Page ${page + 1} of ${Math.max(1, Math.ceil((review.data?.total ?? 0) / PAGE_SIZE))}`}
        onPage={(next) => change({ page: String(next) })}
      />
    </>
  );
}

function DuplicateGroup({ datasetId, group }: { datasetId: string; group: Group }) {
  const queryClient = useQueryClient();
  const decidedKeepers = group.members.filter((member) => member.role === 'keep').map((member) => member.media_id);
  const [keep, setKeep] = useState<Set<string>>(new Set(group.state === 'decided' && decidedKeepers.length > 0 ? decidedKeepers : [group.suggested_keeper.media_id]));
  const path = { dataset_id: datasetId };
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['duplicates', datasetId] });
  const decide = useMutation({
    mutationFn: async (verdict: 'duplicates' | 'not_duplicates') =>
      unwrap(
        await api.POST('/api/v1/dataset/{dataset_id}/duplicates/decisions', {
          params: { path },
          body: {
            groups: [
              {
                media_ids: group.members.map((member) => member.media_id),
                verdict,
                ...(verdict === 'duplicates' ? { keep_media_ids: [...keep] } : {}),
              },
            ],
          },
        }),
      ),
    onSettled: refresh,
  });
  const undo = useMutation({
    mutationFn: async (decisionId: string) => unwrap(await api.DELETE('/api/v1/dataset/{dataset_id}/duplicates/decisions/{decision_id}', { params: { path: { ...path, decision_id: decisionId } } })),
    onSettled: refresh,
  });
  const toggle = (id: string) => setKeep((current) => {
    const next = new Set(current);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    return next;
  });
  const keepsAll = keep.size === group.members.length;
  const whyDisabled = keep.size === 0 ? 'Choose at least one copy to keep.' : keepsAll ? 'Keeping every copy: use “Not duplicates”.' : null;
  const busy = decide.isPending || undo.isPending;

  return (
    <li className="card dup-group" data-group-id={group.group_id} aria-label={`Group of ${group.members.length}: ${group.members.map((member) => member.file_name).join(', ')}`}>
      <p className="dup-summary">
        <strong>{group.state === 'decided' ? (group.decision?.verdict === 'not_duplicates' ? 'Not duplicates' : 'Decided') : group.state === 'changed' ? 'New copies since the decision' : 'To review'}</strong>{' '}
        · {group.member_count} images · similarity {group.similarity.toFixed(3)}
        {group.member_count > group.members.length && ` · showing ${group.members.length}, the suggested keeper first`}
      </p>
      <div className="dup-row">
        {group.members.map((member) => {
          const suggested = member.media_id === group.suggested_keeper.media_id;
          return (
            <label key={member.media_id} className={`dup-item${keep.has(member.media_id) ? ' keep' : ''}`}>
              <img src={member.media_thumb_uri} alt={member.file_name} loading="lazy" width={160} height={160} />
              <span>
                <input type="checkbox" aria-label={`keep ${member.file_name}`} checked={keep.has(member.media_id)} onChange={() => toggle(member.media_id)} disabled={group.state === 'decided'} /> keep {member.file_name}
              </span>
              <span className="muted">
                {resolution(member)} · {fileSize(member.file_size)}
              </span>
              {member.issues.length > 0 && <span className="muted">issues: {member.issues.join(', ')}</span>}
              {member.role && <span className="badge">{ROLE_TEXT[member.role]}</span>}
              {!member.role && group.state === 'changed' && <span className="badge new">new</span>}
              {suggested && group.state !== 'decided' && <span className="badge suggested">suggested: {group.suggested_keeper.reasons.join('; ')}</span>}
            </label>
          );
        })}
      </div>
      {group.decision && group.decision.conflicts.length > 0 && (
        <ul className="muted" aria-label="Conflicts left to you">
          {group.decision.conflicts.map((conflict) => (
            <li key={`${conflict.keeper_media_id}-${conflict.field}`}>conflict, {conflictText(conflict)}</li>
          ))}
        </ul>
      )}
      {group.state === 'decided' && group.decision ? (
        <button type="button" disabled={busy} onClick={() => undo.mutate(group.decision!.decision_id)}>
          Undo decision
        </button>
      ) : (
        <>
          <button type="button" disabled={busy || whyDisabled !== null} onClick={() => decide.mutate('duplicates')}>
            Keep {keep.size === 1 ? 'this copy' : 'these copies'}, discard the rest
          </button>{' '}
          <button type="button" disabled={busy} onClick={() => decide.mutate('not_duplicates')}>
            Not duplicates
          </button>{' '}
          {whyDisabled && <span className="muted">{whyDisabled}</span>}
        </>
      )}
      <ErrorMessage error={decide.error ?? undo.error} prefix="The decision was not saved" />
    </li>
  );
}
