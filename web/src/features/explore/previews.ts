import type { Preview } from './api';

/** A thumbnail's key in the grid: an image can show several objects of one cluster, told apart by their index. */
export const thumbKey = (preview: Preview, index: number) => (preview.bounding_box ? `${preview.media_id}-${index}` : preview.media_id);

/** The API ranks by cosine distance; the page says similarity, as the thresholds and propagation do. */
export const similarity = (cosineDistance: number) => 1 - cosineDistance;

