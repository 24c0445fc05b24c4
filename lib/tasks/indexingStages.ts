import type { StageRange } from './defineTask';

/** The stages of the tasks that index media, shared by them (a stage means the same share in every task). */
export const INDEXING_STAGES = {
  collect: [0, 10],
  /** Decoding and embedding, chunk by chunk (each chunk's decode is the first half of its share, its embedding the second). */
  index: [10, 80],
  /** Clustering and scoring; a label check after an index or an import counts here too. */
  analyze: [80, 95],
} as const satisfies Record<string, StageRange>;
