import type { Neighbour } from './neighbourScores';

/** See docs/decisions.md ("Label quality"). */
export const LABEL_QUALITY = {
  /** Neighbours whose labels vote on an item's class. */
  neighbours: 10,
  /** A neighbour's vote is its similarity to this power: near neighbours count far more than loose ones. */
  similarityPower: 4,
  /** Weight of the class prior in every item's probabilities (smooths items with few labelled neighbours). */
  priorWeight: 0.05,
  /** Near-duplicates in different splits (the duplicates cut-off of the neighbour scores). */
  leakageSimilarity: 0.9,
  /** Confused class pairs the report lists. */
  confusedPairs: 10,
};

export interface LabelledItem {
  /** Index into the class list, or -1 for an item without a label (it votes for nothing). */
  label: number;
  /** Nearest first, the item itself excluded. */
  neighbours: Neighbour[];
}

export interface LabelVerdict {
  /** 1 − the out-of-sample probability of the given label: how likely the label is wrong. */
  score: number;
  /** The most probable other class. */
  suggested: number;
  /** Confident learning counts the label among the likely wrong ones. */
  flagged: boolean;
}

export interface LabelCheck {
  /** One per item; undefined for items without a label. */
  verdicts: Array<LabelVerdict | undefined>;
  /** Per class: the mean probability of the class over the items labelled with it (confident learning's threshold). */
  thresholds: number[];
  /** Per class: the estimated share of its labels that are wrong (from the calibrated confident joint). */
  errorRates: number[];
}

/**
 * Out-of-sample class probabilities of every item from its neighbours' labels: each labelled
 * neighbour votes for its class with weight similarity^power, plus a little of the class prior. The
 * item's own label never votes for itself.
 */
export function neighbourProbabilities(items: LabelledItem[], classes: number): Float64Array[] {
  const { similarityPower, priorWeight } = LABEL_QUALITY;
  const prior = new Float64Array(classes);
  let labelled = 0;
  for (const item of items) {
    if (item.label >= 0) {
      prior[item.label]++;
      labelled++;
    }
  }
  for (let c = 0; c < classes; c++) prior[c] = labelled === 0 ? 1 / classes : prior[c] / labelled;
  return items.map((item) => {
    const votes = new Float64Array(classes);
    let total = 0;
    for (const neighbour of item.neighbours.slice(0, LABEL_QUALITY.neighbours)) {
      const label = items[neighbour.index]?.label ?? -1;
      if (label < 0) continue;
      const weight = Math.max(0, neighbour.similarity) ** similarityPower;
      votes[label] += weight;
      total += weight;
    }
    const scale = total + priorWeight;
    for (let c = 0; c < classes; c++) votes[c] = (votes[c] + priorWeight * prior[c]) / scale;
    return votes;
  });
}

/**
 * Confident learning (Northcutt et al., 2021) over neighbour probabilities, with the pruning
 * cleanlab's find_label_issues uses by default (prune by noise rate): a class's threshold is the mean
 * probability of it among the items labelled with it; an item counts in the confident joint at
 * (its label, the most probable class whose probability reaches its threshold). Calibrated to the
 * class sizes, each off-diagonal cell (given y, true c) estimates how many labels y are really c;
 * that many items labelled y with the largest margin p(c) − p(y) are flagged, suggesting c; an item
 * whose most probable class is its label is not.
 */
export function checkLabels(items: LabelledItem[], classes: number): LabelCheck {
  const probabilities = neighbourProbabilities(items, classes);
  const sums = new Float64Array(classes);
  const counts = new Float64Array(classes);
  const byClass: number[][] = Array.from({ length: classes }, () => []);
  items.forEach((item, i) => {
    if (item.label < 0) return;
    sums[item.label] += probabilities[i][item.label];
    counts[item.label]++;
    byClass[item.label].push(i);
  });
  const thresholds = Array.from(sums, (sum, c) => (counts[c] === 0 ? 1 : sum / counts[c]));

  const joint = Array.from({ length: classes }, () => new Float64Array(classes));
  items.forEach((item, i) => {
    if (item.label < 0) return;
    const p = probabilities[i];
    const confident: number[] = [];
    for (let c = 0; c < classes; c++) if (p[c] >= thresholds[c] - 1e-6) confident.push(c);
    // Several classes above their thresholds: the most probable class overall, as cleanlab counts it.
    if (confident.length > 0) joint[item.label][confident.length === 1 ? confident[0] : argmax(p)]++;
  });

  const flaggedAs = new Map<number, { suggested: number; margin: number }>();
  for (let given = 0; given < classes; given++) {
    const counted = joint[given].reduce((sum, value) => sum + value, 0);
    if (counted === 0) continue;
    const expected = roundPreservingSum(Array.from(joint[given], (value) => (value / counted) * counts[given]));
    for (let truth = 0; truth < classes; truth++) {
      if (truth === given || expected[truth] === 0) continue;
      const margin = (i: number) => probabilities[i][truth] - probabilities[i][given];
      const ranked = [...byClass[given]].sort((a, b) => margin(b) - margin(a)).slice(0, expected[truth]);
      for (const i of ranked) {
        const earlier = flaggedAs.get(i);
        if (!earlier || margin(i) > earlier.margin) flaggedAs.set(i, { suggested: truth, margin: margin(i) });
      }
    }
  }
  // An item whose most probable class is its own label is never flagged.
  for (const i of flaggedAs.keys()) if (argmax(probabilities[i]) === items[i].label) flaggedAs.delete(i);

  const verdicts = items.map((item, i): LabelVerdict | undefined => {
    if (item.label < 0) return undefined;
    const p = probabilities[i];
    let suggested = -1;
    for (let c = 0; c < classes; c++) if (c !== item.label && (suggested < 0 || p[c] > p[suggested])) suggested = c;
    const flagged = flaggedAs.get(i);
    return { score: 1 - p[item.label], suggested: flagged?.suggested ?? suggested, flagged: flagged !== undefined };
  });

  const errorRates = joint.map((row, c) => {
    const counted = row.reduce((sum, value) => sum + value, 0);
    return counted === 0 ? 0 : (counted - row[c]) / counted;
  });
  return { verdicts, thresholds, errorRates };
}

/** The first index of the largest value. */
function argmax(values: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}

/** Integers, each its value rounded down or up, summing to the rounded sum: the largest remainders get the ones left. */
function roundPreservingSum(values: number[]): number[] {
  const floors = values.map(Math.floor);
  let left = Math.round(values.reduce((sum, value) => sum + value, 0)) - floors.reduce((sum, value) => sum + value, 0);
  const byRemainder = values.map((value, i) => ({ i, remainder: value - floors[i] })).sort((a, b) => b.remainder - a.remainder);
  for (const { i } of byRemainder) {
    if (left <= 0) break;
    floors[i]++;
    left--;
  }
  return floors;
}

export interface LeakagePair {
  a: number;
  b: number;
  similarity: number;
}

/** Near-duplicate pairs (each once, a < b) whose two items sit in different splits. */
export function leakagePairs(items: Array<{ split: string | null; neighbours: Neighbour[] }>): LeakagePair[] {
  const pairs: LeakagePair[] = [];
  const seen = new Set<string>();
  items.forEach((item, a) => {
    if (item.split === null) return;
    for (const neighbour of item.neighbours) {
      if (neighbour.similarity < LABEL_QUALITY.leakageSimilarity) break;
      const other = items[neighbour.index]?.split ?? null;
      if (other === null || other === item.split) continue;
      const key = a < neighbour.index ? `${a}:${neighbour.index}` : `${neighbour.index}:${a}`;
      if (seen.has(key)) continue;
      seen.add(key);
      pairs.push({ a: Math.min(a, neighbour.index), b: Math.max(a, neighbour.index), similarity: neighbour.similarity });
    }
  });
  return pairs;
}

/** What a label-quality check found in one version; stored with the version and served as its report. */
export interface LabelQualityReport {
  label_field: string;
  split_field: string | null;
  checked_at: string;
  /** Embedded images read, and those among them with a label. */
  n_media: number;
  n_labelled: number;
  n_flagged: number;
  /** Share of the labels estimated wrong (class error rates weighted by class size). */
  estimated_error_rate: number;
  classes: Array<{ label: string; count: number; flagged: number; estimated_error_rate: number }>;
  /** Flagged labels by (given, suggested), most frequent first. */
  confused_pairs: Array<{ label: string; suggested_label: string; count: number }>;
  leakage: { pairs: number; by_splits: Array<{ splits: [string, string]; pairs: number }> };
}

/** The report of a check: per class counts and error rates, the most confused pairs and leakage per split pair. */
export function summariseLabelQuality(input: {
  fields: { label: string; split: string | null };
  classes: string[];
  labels: number[];
  splits: Array<string | null>;
  check: LabelCheck;
  leakage: LeakagePair[];
  checkedAt: Date;
}): LabelQualityReport {
  const { classes, labels, check } = input;
  const counts = classes.map(() => 0);
  const flagged = classes.map(() => 0);
  const confused = new Map<string, number>();
  labels.forEach((label, i) => {
    if (label < 0) return;
    counts[label]++;
    const verdict = check.verdicts[i];
    if (!verdict?.flagged) return;
    flagged[label]++;
    const key = `${label}:${verdict.suggested}`;
    confused.set(key, (confused.get(key) ?? 0) + 1);
  });
  const labelled = counts.reduce((sum, count) => sum + count, 0);
  const bySplits = new Map<string, number>();
  for (const pair of input.leakage) {
    const splits = [input.splits[pair.a]!, input.splits[pair.b]!].sort();
    const key = JSON.stringify(splits);
    bySplits.set(key, (bySplits.get(key) ?? 0) + 1);
  }
  return {
    label_field: input.fields.label,
    split_field: input.fields.split,
    checked_at: input.checkedAt.toISOString(),
    n_media: labels.length,
    n_labelled: labelled,
    n_flagged: flagged.reduce((sum, count) => sum + count, 0),
    estimated_error_rate: labelled === 0 ? 0 : counts.reduce((sum, count, c) => sum + count * check.errorRates[c], 0) / labelled,
    classes: classes
      .map((label, c) => ({ label, count: counts[c], flagged: flagged[c], estimated_error_rate: check.errorRates[c] }))
      .sort((a, b) => b.count - a.count || a.label.localeCompare(b.label)),
    confused_pairs: [...confused]
      .map(([key, count]) => {
        const [given, suggested] = key.split(':').map(Number);
        return { label: classes[given], suggested_label: classes[suggested], count };
      })
      .sort((a, b) => b.count - a.count || a.label.localeCompare(b.label) || a.suggested_label.localeCompare(b.suggested_label))
      .slice(0, LABEL_QUALITY.confusedPairs),
    leakage: {
      pairs: input.leakage.length,
      by_splits: [...bySplits]
        .map(([key, pairs]) => ({ splits: JSON.parse(key) as [string, string], pairs }))
        .sort((a, b) => b.pairs - a.pairs),
    },
  };
}

/** A class's labels as they are now: how many carry it, and how many of those are still flagged. */
export interface LiveClass {
  label: string;
  count: number;
  flagged: number;
}

/**
 * The report of the last check with the labels as they are now: class counts, flags and confused pairs read from the
 * current labels and the flags left, and each class's estimated error rate lowered by the flags gone since the check
 * (a flag goes when its item is relabelled: one estimated wrong label less). Leakage and the media read stay the check's.
 */
export function reportAsLabelledNow(
  report: LabelQualityReport,
  live: { classes: LiveClass[]; confused: LabelQualityReport['confused_pairs'] },
): LabelQualityReport {
  const atCheck = new Map(report.classes.map((row) => [row.label, row]));
  const classes = live.classes
    .map(({ label, count, flagged }) => {
      const checked = atCheck.get(label);
      const wrongAtCheck = checked ? checked.estimated_error_rate * checked.count : 0;
      const wrong = Math.max(0, wrongAtCheck - Math.max(0, (checked?.flagged ?? 0) - flagged));
      return { label, count, flagged, estimated_error_rate: count === 0 ? 0 : Math.min(1, wrong / count) };
    })
    .sort((a, b) => b.count - a.count || a.label.localeCompare(b.label));
  const labelled = classes.reduce((sum, row) => sum + row.count, 0);
  return {
    ...report,
    n_labelled: labelled,
    n_flagged: classes.reduce((sum, row) => sum + row.flagged, 0),
    estimated_error_rate: labelled === 0 ? 0 : classes.reduce((sum, row) => sum + row.count * row.estimated_error_rate, 0) / labelled,
    classes,
    confused_pairs: live.confused.slice(0, LABEL_QUALITY.confusedPairs),
  };
}
