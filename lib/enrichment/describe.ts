import type { PredictedClass } from '../ml/imageEncoder';
import { classPhrase, imagenetGroup } from './imagenetGroups';

/**
 * Tags and captions made from model outputs: no language model, only what the classifier and the
 * detector found, put into words by fixed rules (docs/models.md states them).
 */

/** A fine class becomes a tag from this probability on. */
export const CLASS_TAG_MIN = 0.15;
/** A group ("cat", "dog") becomes a tag when its classes among the top ones add up to this. */
export const GROUP_TAG_MIN = 0.25;
/** A class is named in a caption from this probability on (the first one always is). */
const CAPTION_CLASS_MIN = 0.15;

export interface Tag {
  label: string;
  confidence: number;
}

/** IMAGE_TAGGING: the confident classes and their groups, each label once with its best confidence. */
export function tagsFromClasses(classes: readonly PredictedClass[]): Tag[] {
  const tags = new Map<string, number>();
  const keep = (label: string, confidence: number) => tags.set(label, Math.max(tags.get(label) ?? 0, confidence));
  const groups = new Map<string, number>();
  for (const predicted of classes) {
    if (predicted.confidence >= CLASS_TAG_MIN) keep(predicted.label, predicted.confidence);
    const group = imagenetGroup(predicted.index, predicted.label);
    if (group) groups.set(group, (groups.get(group) ?? 0) + predicted.confidence);
  }
  for (const [group, confidence] of groups) if (confidence >= GROUP_TAG_MIN) keep(group, Math.min(1, confidence));
  return [...tags].map(([label, confidence]) => ({ label, confidence })).sort((a, b) => b.confidence - a.confidence);
}

export interface FoundObject {
  label: string;
  /** The object's own caption when CAPTION_OBJECTS ran ("golden retriever dog"), else its label. */
  caption?: string | null;
}

const IRREGULAR_PLURALS: Record<string, string> = { person: 'people', mouse: 'mice', sheep: 'sheep', skis: 'skis', scissors: 'scissors' };
const NUMBER_WORDS = ['no', 'a', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

function plural(noun: string): string {
  const words = noun.split(' ');
  const last = words.pop()!;
  const irregular = IRREGULAR_PLURALS[last];
  const pluralLast = irregular ?? (/(s|x|ch|sh)$/.test(last) ? `${last}es` : /[^aeiou]y$/.test(last) ? `${last.slice(0, -1)}ies` : `${last}s`);
  return [...words, pluralLast].join(' ');
}

function withArticle(noun: string): string {
  return `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;
}

function counted(noun: string, count: number): string {
  if (count === 1) return withArticle(noun);
  return `${NUMBER_WORDS[count] ?? String(count)} ${plural(noun)}`;
}

function listed(parts: string[]): string {
  if (parts.length <= 1) return parts.join('');
  return `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

/**
 * CAPTION_IMAGES: "a photo of" the detected objects with their counts, most frequent first, with the
 * classifier's best class named where it refines one of them ("a photo of a golden retriever dog and a
 * bicycle") or added when it names something else ("a photo of a person with a bobsled"); without
 * objects, the confident classes ("a photo of an Egyptian cat").
 */
export function imageCaption(classes: readonly PredictedClass[], objects: readonly FoundObject[]): string {
  const named = classes.filter((predicted, i) => i === 0 || predicted.confidence >= CAPTION_CLASS_MIN).slice(0, 2);
  if (objects.length === 0) {
    if (named.length === 0) return 'a photo';
    return `a photo of ${listed(named.map((predicted) => withArticle(classPhrase(predicted.index, predicted.label))))}`;
  }
  const counts = new Map<string, { count: number; noun: string }>();
  for (const object of objects) {
    const entry = counts.get(object.label);
    // One object is named by its own caption; several by their label, counted.
    if (entry) Object.assign(entry, { count: entry.count + 1, noun: object.label });
    else counts.set(object.label, { count: 1, noun: object.caption ?? object.label });
  }
  const best = named[0];
  const bestGroup = best && imagenetGroup(best.index, best.label);
  const single = bestGroup ? counts.get(bestGroup) : undefined;
  const refined = single?.count === 1 && single.noun === bestGroup;
  if (refined) single.noun = classPhrase(best.index, best.label);
  const parts = [...counts.values()].sort((a, b) => b.count - a.count).map((entry) => counted(entry.noun, entry.count));
  const extra = best && !(bestGroup && counts.has(bestGroup)) ? ` with ${withArticle(classPhrase(best.index, best.label))}` : '';
  return `a photo of ${listed(parts)}${extra}`;
}

/**
 * CAPTION_OBJECTS: an object's caption is its COCO label, refined by the best ImageNet class of its
 * crop when that class belongs to the same group ("dog" + "golden retriever" → "golden retriever dog").
 */
export function objectCaption(label: string, cropClasses: readonly PredictedClass[]): string {
  const match = cropClasses.find((predicted) => predicted.confidence >= CAPTION_CLASS_MIN && imagenetGroup(predicted.index, predicted.label) === label);
  return match ? classPhrase(match.index, match.label) : label;
}
