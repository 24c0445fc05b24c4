/**
 * What a curator picked in Explore: images one by one, whole clusters (every member, not only the
 * previews shown), and everything the filters match (on the server, not only what is loaded).
 */
export interface Selection {
  mediaIds: string[];
  clusters: Array<{ id: string; size: number }>;
  /** Every image the page's VQL filters match (a JSON array; "[]" is every image). */
  matching?: { vql: string; description: string };
}

export const EMPTY_SELECTION: Selection = { mediaIds: [], clusters: [] };

export const isEmptySelection = (selection: Selection) => selection.mediaIds.length === 0 && selection.clusters.length === 0 && !selection.matching;

/** Whether the selection holds the cluster as a whole. */
export const hasCluster = (selection: Selection, clusterId: string) => selection.clusters.some((picked) => picked.id === clusterId);

/**
 * `selection` after a click on one image: it is picked or unpicked; with `range` (Shift) every image from the
 * last one clicked to this one, in the grid's `order`, is picked instead.
 */
export function toggleMedia(selection: Selection, order: readonly string[], mediaId: string, lastPicked: string | undefined, range: boolean): Selection {
  const picked = new Set(selection.mediaIds);
  const [from, to] = [order.indexOf(lastPicked ?? ''), order.indexOf(mediaId)];
  if (range && from >= 0 && to >= 0) {
    for (const id of order.slice(Math.min(from, to), Math.max(from, to) + 1)) picked.add(id);
  } else if (picked.has(mediaId)) picked.delete(mediaId);
  else picked.add(mediaId);
  return { ...selection, mediaIds: [...picked] };
}

/** `selection` with a whole cluster (every member, not only its previews) picked, or unpicked if it was. */
export function toggleCluster(selection: Selection, cluster: { id: string; size: number }): Selection {
  return {
    ...selection,
    clusters: hasCluster(selection, cluster.id) ? selection.clusters.filter((picked) => picked.id !== cluster.id) : [...selection.clusters, cluster],
  };
}

/** What the selection holds, in words. */
export function describeSelection(selection: Selection): string {
  const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
  const parts: string[] = [];
  if (selection.mediaIds.length > 0) parts.push(count(selection.mediaIds.length, 'image'));
  const inClusters = selection.clusters.reduce((sum, cluster) => sum + cluster.size, 0);
  if (selection.clusters.length > 0) parts.push(`${count(selection.clusters.length, 'whole cluster')} (${count(inClusters, 'image')})`);
  if (selection.matching) parts.push(selection.matching.description);
  return parts.length > 0 ? `${parts.join(' + ')} selected` : 'Nothing selected';
}

/** A selection's count (POST …/selection/count) in words: "1,095 items: 976 images, 119 video frames". */
export function describeCount(count: { total: number; images: number; video_frames: number; videos: number }): string {
  const n = (value: number, noun: string) => `${value.toLocaleString()} ${noun}${value === 1 ? '' : 's'}`;
  const kinds = [n(count.images, 'image'), ...(count.video_frames > 0 ? [n(count.video_frames, 'video frame')] : []), ...(count.videos > 0 ? [n(count.videos, 'video')] : [])];
  return kinds.length === 1 ? kinds[0] : `${n(count.total, 'item')}: ${kinds.join(', ')}`;
}

/** The API's MediaSelection: the union of the picked images, the clusters and what the filters match. */
export function selectionBody(selection: Selection) {
  return {
    ...(selection.mediaIds.length > 0 ? { media_ids: selection.mediaIds } : {}),
    ...(selection.clusters.length > 0 ? { cluster_ids: selection.clusters.map((cluster) => cluster.id) } : {}),
    ...(selection.matching ? { vql: selection.matching.vql } : {}),
  };
}


/** The API takes at most this many media ids in one list. */
export const IDS_PER_LIST = 10_000;

/** The picked images in lists the API takes (a map's lasso may pick many thousands). */
export function mediaIdLists(selection: Selection): string[][] {
  const lists: string[][] = [];
  for (let start = 0; start < selection.mediaIds.length; start += IDS_PER_LIST) lists.push(selection.mediaIds.slice(start, start + IDS_PER_LIST));
  return lists;
}

/** The selection as requests of the API's size: the first with the clusters and the filter, the rest with more picked images. */
export function selectionBodies(selection: Selection) {
  const [first = [], ...rest] = mediaIdLists(selection);
  return [selectionBody({ ...selection, mediaIds: first }), ...rest.map((ids) => ({ media_ids: ids }))];
}
