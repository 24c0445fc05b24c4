import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../lib/config';
import { imageCaption, objectCaption, tagsFromClasses } from '../../lib/enrichment/describe';
import { classPhrase, imagenetGroup } from '../../lib/enrichment/imagenetGroups';

const labels: string[] = JSON.parse(fs.readFileSync(path.join(loadConfig({}).models.dir, 'efficientnet_lite0.json'), 'utf8')).labels;
const predicted = (label: string, confidence: number, from = 0) => ({ index: labels.indexOf(label, from), label, confidence });

describe('ImageNet groups', () => {
  it('start and end where the installed class list puts them', () => {
    expect([labels[151], labels[268]]).toEqual(['Chihuahua', 'Mexican hairless']);
    expect([labels[281], labels[285]]).toEqual(['tabby', 'Egyptian cat']);
    expect(labels[339]).toBe('sorrel');
    expect(imagenetGroup(labels.indexOf('golden retriever'), 'golden retriever')).toBe('dog');
    expect(imagenetGroup(339, 'sorrel')).toBe('horse');
    // ImageNet's "kite" is the bird; the toy is not in ImageNet.
    expect(imagenetGroup(labels.indexOf('kite'), 'kite')).toBe('bird');
    expect(imagenetGroup(labels.indexOf('mountain bike'), 'mountain bike')).toBe('bicycle');
    expect(imagenetGroup(labels.indexOf('tripod'), 'tripod')).toBeUndefined();
  });

  it('name a class with its group noun unless the name says it', () => {
    expect(classPhrase(281, 'tabby')).toBe('tabby cat');
    expect(classPhrase(285, 'Egyptian cat')).toBe('Egyptian cat');
    expect(classPhrase(labels.indexOf('teddy'), 'teddy')).toBe('teddy bear');
    expect(classPhrase(labels.indexOf('tripod'), 'tripod')).toBe('tripod');
  });
});

describe('tags and captions from model outputs', () => {
  const cat = [predicted('Egyptian cat', 0.77), predicted('tiger cat', 0.1), predicted('tabby', 0.09), predicted('lynx', 0.01)];

  it('tags the confident classes and the groups their probabilities add up to', () => {
    expect(tagsFromClasses(cat)).toEqual([
      { label: 'cat', confidence: expect.closeTo(0.96, 5) },
      { label: 'Egyptian cat', confidence: 0.77 },
    ]);
    expect(tagsFromClasses([predicted('tripod', 0.1)])).toEqual([]);
  });

  it('captions from classes alone, or from counted objects refined by the best class', () => {
    expect(imageCaption(cat, [])).toBe('a photo of an Egyptian cat');
    expect(imageCaption([], [])).toBe('a photo');
    const retriever = [predicted('golden retriever', 0.6)];
    expect(imageCaption(retriever, [{ label: 'dog' }, { label: 'bicycle' }])).toBe('a photo of a golden retriever dog and a bicycle');
    expect(imageCaption([predicted('bobsled', 0.3)], [{ label: 'person' }, { label: 'person' }, { label: 'kite' }])).toBe(
      'a photo of two people and a kite with a bobsled',
    );
    expect(imageCaption(retriever, [{ label: 'dog' }, { label: 'dog' }, { label: 'bus', caption: 'school bus' }])).toBe('a photo of two dogs and a school bus');
  });

  it('captions an object by its label, refined by its crop class when they agree', () => {
    expect(objectCaption('dog', [predicted('golden retriever', 0.5)])).toBe('golden retriever dog');
    expect(objectCaption('dog', [predicted('tabby', 0.9)])).toBe('dog');
  });
});
