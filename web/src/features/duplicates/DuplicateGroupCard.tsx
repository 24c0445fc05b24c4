import { useState, type KeyboardEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ErrorMessage } from '../../components/ErrorMessage';
import { isTyping } from '../../components/ShortcutsHelp';
import { decideGroup, duplicateKeys, undoDecision, type DuplicateGroup, type DuplicateMember, type MergeConflict, type Verdict } from './api';
import { CompareDialog } from './CompareDialog';
import { fileSize, pairOf, resolution } from './pairs';
import { PairReason } from './PairReason';

const ROLE_TEXT: Record<NonNullable<DuplicateMember['role']>, string> = { keep: 'kept', discard: 'discarded', distinct: 'not a duplicate' };

export const conflictText = (conflict: MergeConflict) =>
  `${conflict.kind === 'class' ? 'class' : conflict.field}: kept ${conflict.kept === null ? 'none' : JSON.stringify(conflict.kept)}, discarded ${conflict.discarded.map((entry) => JSON.stringify(entry.value)).join(', ')}`;

interface Decision {
  verdict: Verdict;
  keep: string[];
  /** Captured when the decision is made, so focus moves on from the list as the curator saw it. */
  onDone(summary: string): void;
}

/**
 * One group to review: each copy with its tier and reason, the suggested keeper with why, and the decision.
 * Keys on the group (not while typing): k keeps the focused copy (or the ticked ones) and discards the rest,
 * d discards all but the ticked copies, n says they are not duplicates, ↑ ↓ move between groups.
 * `onDecided` runs once the list shows the decision, to move focus on.
 */
export function DuplicateGroupCard({ datasetId, group, onDecided }: { datasetId: string; group: DuplicateGroup; onDecided(summary: string): void }) {
  const queryClient = useQueryClient();
  const decidedKeepers = group.members.filter((member) => member.role === 'keep').map((member) => member.media_id);
  const [keep, setKeep] = useState<Set<string>>(new Set(group.state === 'decided' && decidedKeepers.length > 0 ? decidedKeepers : [group.suggested_keeper.media_id]));
  const [comparing, setComparing] = useState<DuplicateMember | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: duplicateKeys.all(datasetId) });
  const decide = useMutation({
    mutationFn: ({ verdict, keep: keepIds }: Decision) => decideGroup(datasetId, group, verdict, keepIds),
    onSuccess: async (_result, { verdict, keep: keepIds, onDone }) => {
      await refresh();
      const name = (id: string) => group.members.find((member) => member.media_id === id)?.file_name ?? id;
      const discarded = group.members.length - keepIds.length;
      onDone(verdict === 'not_duplicates' ? `Not duplicates: ${group.members.map((member) => member.file_name).join(', ')}.` : `Kept ${keepIds.map(name).join(', ')}; ${discarded} cop${discarded === 1 ? 'y' : 'ies'} discarded.`);
    },
    onError: refresh,
  });
  const undo = useMutation({
    mutationFn: ({ decisionId }: { decisionId: string; onDone(summary: string): void }) => undoDecision(datasetId, decisionId),
    onSuccess: async (_result, { onDone }) => {
      await refresh();
      onDone('Decision undone: the group waits for review again.');
    },
    onError: refresh,
  });
  const toggle = (id: string) =>
    setKeep((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const keepsAll = keep.size === group.members.length;
  const whyDisabled = keep.size === 0 ? 'Choose at least one copy to keep.' : keepsAll ? 'Keeping every copy: use “Not duplicates”.' : null;
  const busy = decide.isPending || undo.isPending;
  const open = group.state !== 'decided';
  const keeper = group.members.find((member) => member.media_id === group.suggested_keeper.media_id);
  const decideWith = (verdict: Verdict, keepIds: string[]) => decide.mutate({ verdict, keep: keepIds, onDone: onDecided });

  const onKeyDown = (event: KeyboardEvent<HTMLLIElement>) => {
    // Not while typing, nor from the comparison dialog (which sits inside the group).
    if (event.altKey || event.ctrlKey || event.metaKey || isTyping(event.nativeEvent) || (event.target as HTMLElement).closest('dialog')) return;
    const item = event.currentTarget;
    if (event.target === item && (event.key === 'ArrowDown' || event.key === 'ArrowUp')) {
      ((event.key === 'ArrowDown' ? item.nextElementSibling : item.previousElementSibling) as HTMLElement | null)?.focus();
      event.preventDefault();
      return;
    }
    if (!open || busy || !['k', 'd', 'n'].includes(event.key)) return;
    const focusedCopy = (event.target as HTMLElement).closest<HTMLElement>('[data-media-id]')?.dataset.mediaId;
    if (event.key === 'n') decideWith('not_duplicates', []);
    else if (event.key === 'k' && focusedCopy) decideWith('duplicates', [focusedCopy]);
    else if (whyDisabled === null) decideWith('duplicates', [...keep]);
    event.preventDefault();
  };

  return (
    <li
      className="card dup-group"
      tabIndex={-1}
      data-group-id={group.group_id}
      aria-label={`Group of ${group.members.length}: ${group.members.map((member) => member.file_name).join(', ')}`}
      onKeyDown={onKeyDown}
    >
      <p className="dup-summary">
        <strong>{group.state === 'decided' ? (group.decision?.verdict === 'not_duplicates' ? 'Not duplicates' : 'Decided') : group.state === 'changed' ? 'New copies since the decision' : 'To review'}</strong>{' '}
        · {group.member_count} images · similarity {group.similarity.toFixed(3)}
        {group.member_count > group.members.length && ` · showing ${group.members.length}, the suggested keeper first`}
      </p>
      <div className="dup-row">
        {group.members.map((member) => {
          const suggested = member.media_id === group.suggested_keeper.media_id;
          const pair = pairOf(group, member.media_id);
          return (
            <div key={member.media_id} className={`dup-item${keep.has(member.media_id) ? ' keep' : ''}`} data-media-id={member.media_id}>
              <label className="dup-choice">
                <img src={member.media_thumb_uri} alt={member.file_name} loading="lazy" width={160} height={160} />
                <span>
                  <input type="checkbox" aria-label={`keep ${member.file_name}`} checked={keep.has(member.media_id)} onChange={() => toggle(member.media_id)} disabled={!open} /> keep{' '}
                  {member.file_name}
                </span>
              </label>
              <span className="muted">
                {resolution(member)} · {fileSize(member.file_size)}
              </span>
              {pair && <PairReason pair={pair} mediaId={member.media_id} members={group.members} />}
              {member.issues.length > 0 && <span className="muted">issues: {member.issues.join(', ')}</span>}
              {member.role && <span className="badge">{ROLE_TEXT[member.role]}</span>}
              {!member.role && group.state === 'changed' && <span className="badge new">new</span>}
              {suggested && open && <span className="badge suggested">suggested: {group.suggested_keeper.reasons.join('; ')}</span>}
              {!suggested && keeper && (
                <button type="button" className="link-button" onClick={() => setComparing(member)}>
                  Compare with the keeper
                </button>
              )}
            </div>
          );
        })}
      </div>
      {comparing && keeper && <CompareDialog copy={comparing} keeper={keeper} pair={pairOf(group, comparing.media_id)} onClose={() => setComparing(null)} />}
      {group.decision && group.decision.conflicts.length > 0 && (
        <ul className="muted" aria-label="Conflicts left to you">
          {group.decision.conflicts.map((conflict) => (
            <li key={`${conflict.keeper_media_id}-${conflict.field}`}>conflict, {conflictText(conflict)}</li>
          ))}
        </ul>
      )}
      {!open && group.decision ? (
        <button type="button" disabled={busy} onClick={() => undo.mutate({ decisionId: group.decision!.decision_id, onDone: onDecided })}>
          Undo decision
        </button>
      ) : (
        <>
          <button type="button" aria-keyshortcuts="d" disabled={busy || whyDisabled !== null} onClick={() => decideWith('duplicates', [...keep])}>
            Keep {keep.size === 1 ? 'this copy' : 'these copies'}, discard the rest
          </button>{' '}
          <button type="button" aria-keyshortcuts="n" disabled={busy} onClick={() => decideWith('not_duplicates', [])}>
            Not duplicates
          </button>{' '}
          {whyDisabled && <span className="muted">{whyDisabled}</span>}
        </>
      )}
      <ErrorMessage error={decide.error ?? undo.error} prefix="The decision was not saved" />
    </li>
  );
}
