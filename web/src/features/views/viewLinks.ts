// With its extension: the unit tests' typecheck (node16 resolution) reads this module too.
import type { components } from '../../api/schema.js';

type ViewFilters = components['schemas']['View']['filters'];

/**
 * The Explore page of a saved view: its entity type, caption search and VQL filters, as Explore keeps them in its URL;
 * with `batchId`, only the media that batch added (the new matches a view's notification announced).
 */
export function viewExploreUrl(datasetId: string, filters: ViewFilters, batchId?: string): string {
  const params = new URLSearchParams();
  if (filters.entity_type === 'OBJECTS') params.set('entity_type', 'OBJECTS');
  if (filters.caption) params.set('caption', filters.caption);
  if (filters.vql.length > 0) params.set('vql', JSON.stringify(filters.vql));
  if (batchId) params.set('batch', batchId);
  const query = params.toString();
  return `/datasets/${datasetId}/explore${query ? `?${query}` : ''}`;
}

/** A view's notification opens Explore on the view, showing only the batch whose new matches it announced. */
export function viewNotificationUrl(datasetId: string, viewId: string, batchId: unknown): string {
  const params = new URLSearchParams({ view: viewId });
  if (typeof batchId === 'string') params.set('batch', batchId);
  return `/datasets/${datasetId}/explore?${params.toString()}`;
}
