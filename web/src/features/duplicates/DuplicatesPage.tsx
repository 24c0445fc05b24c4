import { useEffect, useRef, useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Pager } from '../../components/Pager';
import { ShortcutsHelp, useShortcutsHelp } from '../../components/ShortcutsHelp';
import { useUrlState } from '../../urlState';
import { AcceptAllPreview } from './AcceptAllPreview';
import { conflictText, DuplicateGroupCard } from './DuplicateGroupCard';
import { duplicateKeys, duplicateQueries, undoAcceptAll, type AcceptResult, type ReviewState, type Tier } from './api';

const PAGE_SIZE = 50;
const STATES: Array<[ReviewState, string]> = [
  ['open', 'To review'],
  ['decided', 'Decided'],
  ['all', 'All'],
];
/** The API's `tiers` as the URL keeps them; copies (exact and near-identical) unless asked otherwise. */
const TIER_FILTERS: Array<[string, string]> = [
  ['exact,near_identical', 'Exact and near-identical'],
  ['similar', 'Similar'],
  ['exact,near_identical,similar', 'All tiers'],
];

/** Where focus goes once a decided group has left (or changed in) the list: the group after it, as the curator saw the list. */
interface FocusTarget {
  groupId: string | null;
  index: number;
  /** The page's answer when the decision was made: focus waits for the list that shows it. */
  before: unknown;
}

/**
 * Near-duplicate groups: each copy's tier and reason, resolution, size and issues, a suggested keeper with its
 * reasons, and decisions that are stored with the dataset (they survive new batches, reindexing and snapshots)
 * and can be undone. After a decision, focus moves to the next group, so a keyboard review goes group by group.
 * Accept all suggestions shows what it will decide first, and is undone at once.
 */
export function DuplicatesPage() {
  const { datasetId = '' } = useParams();
  const [params, change] = useUrlState();
  const similarity = Math.min(1, Math.max(0.9, Number(params.get('similarity')) || 0.9));
  const state = (STATES.find(([value]) => value === params.get('state'))?.[0] ?? 'open') as ReviewState;
  const tierFilter = TIER_FILTERS.find(([value]) => value === params.get('tiers'))?.[0] ?? TIER_FILTERS[0][0];
  const tiers = tierFilter.split(',') as Tier[];
  const page = Math.max(0, Number(params.get('page')) || 0);
  const queryClient = useQueryClient();
  const query = { similarity, tiers, state, page, pageSize: PAGE_SIZE };
  const review = useQuery({
    ...duplicateQueries.review(datasetId, query),
    placeholderData: keepPreviousData,
  });
  const [confirming, setConfirming] = useState(false);
  const [accepted, setAccepted] = useState<AcceptResult | null>(null);
  const [helpOpen, setHelpOpen] = useShortcutsHelp();
  const [focusTarget, setFocusTarget] = useState<FocusTarget | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const groupList = useRef<HTMLUListElement>(null);
  const noGroups = useRef<HTMLParagraphElement>(null);
  const undoAll = useMutation({
    mutationFn: (actionId: string) => undoAcceptAll(datasetId, actionId),
    onSuccess: () => setAccepted(null),
    onSettled: () => queryClient.invalidateQueries({ queryKey: duplicateKeys.all(datasetId) }),
  });
  const counts = review.data?.counts;
  const waiting = counts ? counts.open + counts.changed : 0;
  const groups = review.data?.groups ?? [];

  // After the list shows a decision: the group that came next, else whatever now sits where the decided one was.
  useEffect(() => {
    if (!focusTarget || review.data === focusTarget.before) return;
    const items = Array.from(groupList.current?.querySelectorAll<HTMLElement>(':scope > li') ?? []);
    const target = items.find((item) => item.dataset.groupId === focusTarget.groupId) ?? items[Math.min(focusTarget.index, items.length - 1)] ?? noGroups.current;
    target?.focus();
    setFocusTarget(null);
  }, [focusTarget, review.data]);

  return (
    <>
      <p>
        <Link to="/">Datasets</Link> › <Link to={`/datasets/${datasetId}`}>Dataset</Link> › Duplicates
      </p>
      <h1>Duplicates</h1>
      <p className="muted">
        Images whose similarity is at least the value below are grouped. Each copy says its tier and why: exact (the same bytes), near-identical (the same
        picture resized, re-encoded, cropped a little or brightness-shifted) or similar (alike in content only, often different items). Decisions are kept
        with the dataset: they survive new media, reindexing and snapshots. Discarded copies are left out of exports.
      </p>
      <div className="toolbar">
        <label>
          Similarity ≥ <strong data-testid="similarity-value">{similarity.toFixed(2)}</strong>{' '}
          <input type="range" aria-label="Similarity" min={0.9} max={1} step={0.01} value={similarity} onChange={(event) => change({ similarity: event.target.value })} />
        </label>
        <fieldset className="segmented">
          <legend className="visually-hidden">Tiers to group by</legend>
          {TIER_FILTERS.map(([value, label]) => (
            <label key={value}>
              <input type="radio" name="review-tiers" checked={tierFilter === value} onChange={() => change({ tiers: value === TIER_FILTERS[0][0] ? undefined : value })} /> {label}
            </label>
          ))}
        </fieldset>
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
      <p className="muted dup-keys">
        Keys on a group: <kbd>k</kbd> keep the focused copy, <kbd>d</kbd> keep the ticked copies and discard the rest, <kbd>n</kbd> not duplicates,{' '}
        <kbd>↑</kbd> <kbd>↓</kbd> previous or next group, <kbd>?</kbd> all shortcuts.
      </p>
      {helpOpen && <ShortcutsHelp areas={['Duplicates']} onClose={() => setHelpOpen(false)} />}
      {confirming && (
        <AcceptAllPreview
          datasetId={datasetId}
          similarity={similarity}
          tiers={tiers}
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
      {review.data?.groups.length === 0 && (
        <p ref={noGroups} tabIndex={-1}>
          No group here at this similarity.
        </p>
      )}
      <ul ref={groupList} className="dup-groups" aria-label="Duplicate groups">
        {groups.map((group, index) => (
          <DuplicateGroupCard
            key={`${group.group_id}-${group.state}`}
            datasetId={datasetId}
            group={group}
            onDecided={(summary) => {
              setAnnouncement(summary);
              setFocusTarget({ groupId: groups[index + 1]?.group_id ?? groups[index - 1]?.group_id ?? null, index, before: review.data });
            }}
          />
        ))}
      </ul>
      <Pager
        label="Duplicate pages"
        page={page}
        hasNext={(page + 1) * PAGE_SIZE < (review.data?.total ?? 0)}
        summary={`Page ${page + 1} of ${Math.max(1, Math.ceil((review.data?.total ?? 0) / PAGE_SIZE))}`}
        onPage={(next) => change({ page: String(next) })}
      />
      <p role="status" className="visually-hidden" data-testid="decision-status">
        {announcement}
      </p>
    </>
  );
}
