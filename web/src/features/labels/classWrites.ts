/** Rules and words of the changes of classes the web app offers. */
import type { Dataset } from '../../api/client';
import { refusalOf } from '../../api/offers';

/** Why classes cannot be changed now, in words (the API's, for the dataset's status and the user's role), or undefined when they can. */
export function classWriteBlocked(dataset: Dataset | undefined, labelField: string | null | undefined): string | undefined {
  if (dataset === undefined || labelField === undefined) return 'Loading…';
  if (labelField === null) return 'No label field is declared: choose one on the Labels page first.';
  return refusalOf(dataset, 'edit_labels');
}

/** "1 image", "1,204 images": what a change of classes reports. */
export const imageCount = (count: number) => `${count.toLocaleString('en')} image${count === 1 ? '' : 's'}`;
