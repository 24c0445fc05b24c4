import { useEffect, useRef, useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Pager } from '../../components/Pager';
import { acceptAll, duplicateKeys, duplicateQueries, type AcceptResult, type Tier } from './api';

const PREVIEW_PAGE_SIZE = 10;
const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/**
 * The confirmation of Accept all: the groups it will decide, a page at a time, with the copies it keeps and
 * discards as thumbnails. Confirming sends the preview's token, so a plan that changed meanwhile is refused
 * (and shown again) instead of deciding groups the curator never saw. Escape cancels.
 */
export function AcceptAllPreview({
  datasetId,
  similarity,
  tiers,
  onClose,
  onAccepted,
}: {
  datasetId: string;
  similarity: number;
  tiers: readonly Tier[];
  onClose(): void;
  onAccepted(result: AcceptResult): void;
}) {
  const [page, setPage] = useState(0);
  const queryClient = useQueryClient();
  const region = useRef<HTMLElement>(null);
  const preview = useQuery({
    ...duplicateQueries.preview(datasetId, similarity, tiers, page, PREVIEW_PAGE_SIZE),
    placeholderData: keepPreviousData,
  });
  const accept = useMutation({
    mutationFn: () => acceptAll(datasetId, similarity, tiers, preview.data!),
    onSuccess: (result) => {
      onAccepted(result);
      return queryClient.invalidateQueries({ queryKey: duplicateKeys.all(datasetId) });
    },
    // Refused because the groups changed: show the plan as it is now.
    onError: () => queryClient.invalidateQueries({ queryKey: duplicateKeys.all(datasetId) }),
  });
  useEffect(() => region.current?.focus(), []);
  const data = preview.data;

  return (
    <section
      ref={region}
      tabIndex={-1}
      className="card dup-preview"
      aria-label="Accept all preview"
      onKeyDown={(event) => {
        if (event.key === 'Escape') onClose();
      }}
    >
      <h2>Accept all suggestions?</h2>
      {data && (
        <p data-testid="accept-summary">
          Keeps the suggested copy of {plural(data.total_groups, 'group', 'groups')} and discards {plural(data.discarded_media, 'copy', 'copies')}. Keepers gain the
          discarded copies' labels, tags and metadata; conflicting values are listed afterwards. One undo takes it all back.
        </p>
      )}
      <ErrorMessage error={preview.error} prefix="The preview could not be loaded" />
      <ul className="dup-preview-groups" aria-label="Groups Accept all decides">
        {data?.groups.map((group) => (
          <li key={group.group_id} className="dup-preview-group">
            {group.keep.map((member) => (
              <figure key={member.media_id} className="dup-preview-item keep">
                <img src={member.media_thumb_uri} alt={`keeps ${member.file_name}`} loading="lazy" width={96} height={96} />
                <figcaption>keeps {member.file_name}</figcaption>
              </figure>
            ))}
            {group.discard.map((member) => (
              <figure key={member.media_id} className="dup-preview-item discard">
                <img src={member.media_thumb_uri} alt={`discards ${member.file_name}`} loading="lazy" width={96} height={96} />
                <figcaption>discards {member.file_name}</figcaption>
              </figure>
            ))}
            {group.discard_count > group.discard.length && <span className="muted">and {group.discard_count - group.discard.length} more copies</span>}
            <span className="muted dup-preview-why">{group.keeper_reasons.join('; ')}</span>
          </li>
        ))}
      </ul>
      {data && data.total_groups > PREVIEW_PAGE_SIZE && (
        <Pager
          label="Preview pages"
          page={page}
          hasNext={(page + 1) * PREVIEW_PAGE_SIZE < data.total_groups}
          summary={`Groups ${page * PREVIEW_PAGE_SIZE + 1}-${Math.min(data.total_groups, (page + 1) * PREVIEW_PAGE_SIZE)} of ${data.total_groups}`}
          onPage={setPage}
        />
      )}
      <ErrorMessage error={accept.error} prefix="Nothing was decided" />
      <p>
        <button type="button" disabled={!data || data.total_groups === 0 || accept.isPending || preview.isFetching} onClick={() => accept.mutate()}>
          Yes, decide {data?.total_groups ?? '…'}
        </button>{' '}
        <button type="button" onClick={onClose}>
          Cancel
        </button>{' '}
        {data?.total_groups === 0 && <span className="muted">No group waits for a decision.</span>}
        {preview.isFetching && <span className="muted">Loading the preview…</span>}
      </p>
    </section>
  );
}
