import { useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { toVql } from '../api/vql';
import { ErrorMessage } from '../components/ErrorMessage';
import { useUrlState } from '../urlState';

/** Groups per page: Explore's page of clusters, so 100,000 media never load at once. */
const GROUPS_PER_PAGE = 100;
const DUPLICATE_TAG = 'duplicate';

async function fetchGroups(datasetId: string, similarity: number, page: number) {
  const vql = JSON.stringify(toVql({ duplicates: similarity }));
  const answer = unwrap(
    await api.GET('/api/v1/explore/{dataset_id}', { params: { path: { dataset_id: datasetId }, query: { entity_type: 'IMAGES', threshold: 0, page_number: page, vql } } }),
  );
  // A group is a tightest-threshold cluster with at least two media above the similarity.
  return { groups: answer.clusters.filter((cluster) => cluster.previews.length > 1), clusters: answer.clusters.length };
}
type Group = Awaited<ReturnType<typeof fetchGroups>>['groups'][number];

/** Near-duplicate groups above a similarity, side by side: keep one, tag the others `duplicate`. */
export function DuplicatesPage() {
  const { datasetId = '' } = useParams();
  const [params, change] = useUrlState();
  const similarity = Math.min(1, Math.max(0.5, Number(params.get('similarity')) || 0.9));
  const page = Math.max(0, Number(params.get('page')) || 0);
  const groups = useQuery({
    queryKey: ['explore', datasetId, 'duplicates', similarity, page],
    queryFn: () => fetchGroups(datasetId, similarity, page),
    placeholderData: keepPreviousData,
  });

  return (
    <>
      <p>
        <Link to="/">Datasets</Link> › <Link to={`/datasets/${datasetId}`}>Dataset</Link> › Duplicates
      </p>
      <h1>Duplicates</h1>
      <label>
        Similarity ≥ <strong data-testid="similarity-value">{similarity.toFixed(2)}</strong>{' '}
        <input type="range" aria-label="Similarity" min={0.5} max={1} step={0.01} value={similarity} onChange={(event) => change({ similarity: event.target.value })} />
      </label>
      <ErrorMessage error={groups.error} prefix="The duplicates could not be loaded" />
      {groups.isPending && <p>Loading…</p>}
      {groups.data?.groups.length === 0 && <p>No duplicate group on this page at this similarity.</p>}
      <ul className="dup-groups" aria-label="Duplicate groups">
        {groups.data?.groups.map((group) => (
          <DuplicateGroup key={group.cluster_id} datasetId={datasetId} group={group} />
        ))}
      </ul>
      <nav className="pager" aria-label="Duplicate pages">
        <button type="button" disabled={page === 0} onClick={() => change({ page: String(page - 1) })}>
          Previous
        </button>
        <span>Page {page + 1}</span>
        <button type="button" disabled={(groups.data?.clusters ?? 0) < GROUPS_PER_PAGE} onClick={() => change({ page: String(page + 1) })}>
          Next
        </button>
      </nav>
    </>
  );
}

function DuplicateGroup({ datasetId, group }: { datasetId: string; group: Group }) {
  const queryClient = useQueryClient();
  const [keep, setKeep] = useState(group.previews[0].media_id);
  const tagRest = useMutation({
    mutationFn: async () => {
      const path = { dataset_id: datasetId };
      const { tags } = unwrap(await api.GET('/api/v1/dataset/{dataset_id}/tags', { params: { path } }));
      const tag = tags.find((candidate) => candidate.name === DUPLICATE_TAG) ?? unwrap(await api.POST('/api/v1/dataset/{dataset_id}/tags', { params: { path }, body: { name: DUPLICATE_TAG } }));
      const rest = group.previews.filter((preview) => preview.media_id !== keep).map((preview) => preview.media_id);
      return unwrap(
        await api.POST('/api/v1/dataset/{dataset_id}/tags/{tag_id}/media', {
          params: { path: { ...path, tag_id: tag.id } },
          body: { media_ids: rest },
        }),
      );
    },
    onSettled: () => Promise.all(['explore', 'tags'].map((key) => queryClient.invalidateQueries({ queryKey: [key] }))),
  });
  const tagged = group.user_tags?.some((tag) => tag.name === DUPLICATE_TAG);
  return (
    <li className="card dup-group" data-cluster-id={group.cluster_id}>
      <div className="dup-row">
        {group.previews.map((preview) => (
          <label key={preview.media_id} className={`dup-item${preview.media_id === keep ? ' keep' : ''}`}>
            <img src={preview.media_thumb_uri} alt={preview.caption ?? preview.file_name} loading="lazy" width={160} height={160} />
            <span>
              <input type="radio" name={`keep-${group.cluster_id}`} checked={preview.media_id === keep} onChange={() => setKeep(preview.media_id)} /> keep{' '}
              {preview.file_name}
            </span>
          </label>
        ))}
      </div>
      <button type="button" disabled={tagRest.isPending} onClick={() => tagRest.mutate()}>
        Keep one, tag the rest “{DUPLICATE_TAG}”
      </button>{' '}
      {tagRest.data && <span role="status">Tagged {tagRest.data.tagged} as {DUPLICATE_TAG}.</span>}
      {!tagRest.data && tagged && <span className="muted">Some of these are tagged {DUPLICATE_TAG} already.</span>}
      <ErrorMessage error={tagRest.error} prefix="Tagging failed" />
    </li>
  );
}
