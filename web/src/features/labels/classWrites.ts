/** Rules and words of the changes of classes the web app offers. */
import type { Dataset } from '../../api/client';

/** The statuses in which the API takes a change of classes (the state machine's edit_labels). */
const WRITABLE = new Set<Dataset['status_new']>(['READY', 'PARTIAL INDEX']);

/** Why classes cannot be changed now, in words, or undefined when they can. */
export function classWriteBlocked(status: Dataset['status_new'] | undefined, labelField: string | null | undefined): string | undefined {
  if (status === undefined || labelField === undefined) return 'Loading…';
  if (labelField === null) return 'No label field is declared: choose one on the Labels page first.';
  if (!WRITABLE.has(status)) return `Classes change on a READY or PARTIAL INDEX dataset (this one is ${status}).`;
  return undefined;
}

/** "1 image", "1,204 images": what a change of classes reports. */
export const imageCount = (count: number) => `${count.toLocaleString('en')} image${count === 1 ? '' : 's'}`;
