/**
 * Everyday names for ImageNet-1k's fine classes: 118 dog breeds are "dog", five house cats are
 * "cat", a sorrel is a "horse". People search for "a dog", not for "Border collie", so a tag and a
 * caption carry both. Animals are grouped by their (contiguous) index ranges in ImageNet's order,
 * objects by class name. Group names follow COCO's category names where COCO has the thing, so
 * tags and detected objects speak one vocabulary.
 */

const RANGES: Array<[first: number, last: number, group: string]> = [
  [0, 6, 'fish'],
  [7, 24, 'bird'],
  [25, 32, 'amphibian'],
  [33, 37, 'turtle'],
  [38, 48, 'lizard'],
  [49, 50, 'crocodile'],
  [52, 68, 'snake'],
  [72, 77, 'spider'],
  [80, 100, 'bird'],
  [101, 101, 'elephant'],
  [118, 126, 'crab'],
  [127, 146, 'bird'],
  [147, 149, 'whale'],
  [150, 150, 'seal'],
  [151, 268, 'dog'],
  [269, 272, 'wolf'],
  [277, 280, 'fox'],
  [281, 285, 'cat'],
  [286, 293, 'big cat'],
  [294, 297, 'bear'],
  [300, 320, 'insect'],
  [321, 326, 'butterfly'],
  [330, 332, 'rabbit'],
  [333, 338, 'rodent'],
  [339, 339, 'horse'],
  [340, 340, 'zebra'],
  [341, 343, 'pig'],
  [345, 347, 'cow'],
  [348, 349, 'sheep'],
  [350, 353, 'antelope'],
  [354, 355, 'camel'],
  [365, 384, 'monkey'],
  [385, 386, 'elephant'],
  [387, 388, 'panda'],
  [389, 397, 'fish'],
];

/** Where ImageNet's object classes start (index 398, "abacus"): names below are animals, grouped by range. */
const FIRST_OBJECT_CLASS = 398;

const OBJECT_GROUPS: Record<string, string[]> = {
  car: ['ambulance', 'beach wagon', 'cab', 'convertible', 'jeep', 'limousine', 'minivan', 'Model T', 'racer', 'sports car', 'police van', 'go-kart', 'golfcart'],
  bus: ['minibus', 'school bus', 'trolleybus'],
  truck: ['fire engine', 'garbage truck', 'moving van', 'tow truck', 'trailer truck', 'pickup', 'tractor'],
  bicycle: ['bicycle-built-for-two', 'mountain bike', 'tricycle', 'unicycle'],
  motorcycle: ['moped', 'motor scooter'],
  train: ['bullet train', 'electric locomotive', 'steam locomotive', 'passenger car', 'freight car', 'streetcar'],
  airplane: ['airliner', 'warplane'],
  boat: ['canoe', 'catamaran', 'container ship', 'fireboat', 'gondola', 'lifeboat', 'liner', 'schooner', 'speedboat', 'trimaran', 'yawl', 'pirate', 'aircraft carrier', 'paddlewheel'],
  cup: ['coffee mug', 'cup', 'espresso'],
  laptop: ['laptop', 'notebook'],
  tv: ['television'],
  'cell phone': ['cellular telephone', 'dial telephone', 'iPod'],
  camera: ['reflex camera', 'Polaroid camera'],
  clock: ['analog clock', 'digital clock', 'wall clock'],
  umbrella: ['umbrella'],
  'sports ball': ['soccer ball', 'basketball', 'tennis ball', 'volleyball', 'golf ball', 'baseball', 'croquet ball', 'rugby ball', 'ping-pong ball'],
  rocket: ['missile', 'projectile', 'space shuttle'],
  'teddy bear': ['teddy'],
  pizza: ['pizza'],
  banana: ['banana'],
  orange: ['orange'],
  'hot dog': ['hotdog'],
  sandwich: ['cheeseburger'],
  bottle: ['beer bottle', 'pop bottle', 'water bottle', 'wine bottle', 'pill bottle'],
  chair: ['barber chair', 'folding chair', 'rocking chair', 'throne'],
  bench: ['park bench'],
  bed: ['four-poster', 'quilt'],
  couch: ['studio couch'],
  keyboard: ['computer keyboard', 'typewriter keyboard'],
  mouse: ['mouse'],
};

const OBJECT_GROUP_OF = new Map(Object.entries(OBJECT_GROUPS).flatMap(([group, names]) => names.map((name) => [name, group] as const)));

/** The everyday name of ImageNet class `index` named `label`, or undefined when the class is its own name. */
export function imagenetGroup(index: number, label: string): string | undefined {
  if (index < FIRST_OBJECT_CLASS) return RANGES.find(([first, last]) => index >= first && index <= last)?.[2];
  return OBJECT_GROUP_OF.get(label);
}

/**
 * How a caption names the class: the fine name with its group noun unless the name says it already
 * ("tabby" → "tabby cat", "Egyptian cat" stays, "golden retriever" → "golden retriever dog").
 */
export function classPhrase(index: number, label: string): string {
  const group = imagenetGroup(index, label);
  if (group?.includes(label.toLowerCase())) return group;
  if (!group || label.toLowerCase().split(/[\s-]+/).includes(group.split(' ').at(-1)!)) return label;
  return `${label} ${group}`;
}
