import { DETECTION_SOURCE } from '../enrichment/catalog';
import type { ExportRecord } from './exportRecord';
import { classOf, type UserClasses } from './userClasses';

/** A labelled box of an exported image, in fractions (0-1) of the image: top-left corner, width, height. */
export interface LabelledBox {
  label: string;
  box: { x: number; y: number; width: number; height: number };
  /** A label of the whole image (its box is the image), not a detected object. */
  imageLevel: boolean;
  /** Who set a label (custom, propagated, …); null for a detected object. */
  source: string | null;
  confidence: number | null;
}

const WHOLE_IMAGE = { x: 0, y: 0, width: 1, height: 1 };

/** A record that detection formats (COCO, YOLO) hold: an image or video frame whose size is known. */
export function isAnnotatableImage(record: ExportRecord): record is ExportRecord & { width: number; height: number } {
  return record.media_type !== 'VIDEO' && !!record.width && !!record.height;
}

/**
 * The boxes of a record: each of its labels as a box over the whole image, then each detected
 * object's own box. The labels object detection derives from its objects (one per category found)
 * are left out: their objects are there with their real boxes.
 */
export function boxesOf(record: ExportRecord): LabelledBox[] {
  return [
    ...record.labels.filter((label) => label.source !== DETECTION_SOURCE).map((label) => ({ label: label.label, box: WHOLE_IMAGE, imageLevel: true, source: label.source, confidence: label.confidence })),
    ...record.objects.map((object) => ({ label: object.label, box: object.bounding_box, imageLevel: false, source: null, confidence: object.confidence })),
  ];
}

/** The source a box of the user's class carries (COCO `attributes.source`). */
export const LABEL_FIELD_SOURCE = 'label_field';

/**
 * The boxes a detection format (COCO, YOLO) writes for a record: with the user's classes, the box of
 * its class over the whole image, nothing else (model-made labels and detected objects stay in the
 * metadata formats); without, every box of `boxesOf`.
 */
export function trainingBoxes(record: ExportRecord, classes: UserClasses | null): LabelledBox[] {
  if (!classes) return boxesOf(record);
  const label = classOf(record, classes);
  return label === null ? [] : [{ label, box: WHOLE_IMAGE, imageLevel: true, source: LABEL_FIELD_SOURCE, confidence: null }];
}

/**
 * Class ids from `firstId` (COCO counts from 1, YOLO from 0): the user's classes in their order when
 * given (every id known before the first box), else labels in order of first appearance.
 */
export class Categories {
  private readonly ids = new Map<string, number>();

  constructor(
    private readonly firstId: number,
    names: readonly string[] = [],
  ) {
    for (const name of names) this.idOf(name);
  }

  idOf(label: string): number {
    let id = this.ids.get(label);
    if (id === undefined) {
      id = this.firstId + this.ids.size;
      this.ids.set(label, id);
    }
    return id;
  }

  /** [name, id] in id order. */
  entries(): Array<[string, number]> {
    return [...this.ids];
  }
}
