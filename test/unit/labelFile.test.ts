import { checkFileLabels, folderLabels, LabelFileError, matchLabelRows, parseCocoLabels, parseLabelCsv } from '../../lib/labels/labelFile';

const files = ['cats/0001.png', 'dogs/0001.png', 'cats/0002.png', 'birds/kaggle7.jpg'];

describe('label files', () => {
  it('reads a CSV of file,label[,split] with or without a header, by position', () => {
    expect(parseLabelCsv(Buffer.from('\ufefffile,label,split\ncats/0001.png,cat,train\r\n0002.png, cat ,\n'))).toEqual([
      { file: 'cats/0001.png', label: 'cat', split: 'train', where: 'row 2' },
      { file: '0002.png', label: 'cat', split: null, where: 'row 3' },
    ]);
    expect(parseLabelCsv(Buffer.from('cats/0001.png,cat\n'))).toEqual([{ file: 'cats/0001.png', label: 'cat', split: null, where: 'row 1' }]);
    expect(() => parseLabelCsv(Buffer.from('id,label\nx.png\n'))).toThrow('labels CSV row 2: expected file,label[,split], got 1 column(s)');
  });

  it('labels a COCO image with the category most of its annotations have, and names images without annotations', () => {
    const coco = {
      images: [{ id: 1, file_name: 'images/cats/0001.png' }, { id: 2, file_name: 'dogs/0001.png' }, { id: 3, file_name: 'cats/0002.png' }],
      categories: [{ id: 7, name: 'cat' }, { id: 9, name: 'dog' }],
      annotations: [
        { image_id: 1, category_id: 9 },
        { image_id: 1, category_id: 7 },
        { image_id: 1, category_id: 7 },
        { image_id: 2, category_id: 9 },
      ],
    };
    expect(parseCocoLabels(Buffer.from(JSON.stringify(coco))).map((row) => [row.file, row.label])).toEqual([
      ['images/cats/0001.png', 'cat'],
      ['dogs/0001.png', 'dog'],
      ['cats/0002.png', null],
    ]);
    expect(() => parseCocoLabels(Buffer.from(JSON.stringify({ ...coco, annotations: [{ image_id: 1, category_id: 8 }] })))).toThrow('annotation 1 needs');
    expect(() => parseCocoLabels(Buffer.from(JSON.stringify({ ...coco, annotations: [{ image_id: 5, category_id: 7 }] })))).toThrow('annotations of images it does not list: 5');
    expect(() => parseCocoLabels(Buffer.from('[]'))).toThrow(LabelFileError);
  });

  it('matches rows by relative path, else by a unique base name or stem, and refuses the rest', () => {
    const row = (file: string, label = 'x') => ({ file, label, split: null, where: 'row' });
    expect(matchLabelRows([row('./cats\\0001.png', 'cat'), row('0002.png'), row('kaggle7', 'bird')], files)).toEqual([
      { fileName: 'cats/0001.png', label: 'cat', split: null },
      { fileName: 'cats/0002.png', label: 'x', split: null },
      { fileName: 'birds/kaggle7.jpg', label: 'bird', split: null },
    ]);
    expect(() => matchLabelRows([row('cats/0003.png'), row('fish.png')], files)).toThrow('names files that were not uploaded: cats/0003.png, fish.png');
    expect(() => matchLabelRows([row('0001.png')], files)).toThrow('by a base name several uploaded files have');
    expect(() => matchLabelRows([row('cats/0002.png'), row('0002.png')], files)).toThrow('more than once: cats/0002.png');
  });

  it('holds every source to one label rule, the class cap and split names', () => {
    const one = (label: string, split: string | null = null) => [{ name: 'a.png', label, split }];
    expect(() => checkFileLabels(one('cat', 'train'))).not.toThrow();
    expect(() => checkFileLabels(one(''))).toThrow('is empty');
    expect(() => checkFileLabels(one('x'.repeat(101)))).toThrow('is longer than 100 characters');
    expect(() => checkFileLabels(one('a\u0007b'))).toThrow('control characters');
    expect(() => checkFileLabels(one('a\u2028b'))).toThrow('control characters');
    expect(() => checkFileLabels(one('cat', 'train/x'))).toThrow('is not a split name');
    const many = Array.from({ length: 10_000 }, (_, i) => ({ name: `${i}.png`, label: `c${i}`, split: null }));
    expect(() => checkFileLabels(many)).toThrow('make 10000 classes; a dataset has at most 1000');
    expect(() => checkFileLabels(one('new'), Array.from({ length: 1_000 }, (_, i) => `c${i}`))).toThrow('make 1001 classes');
    expect(folderLabels([{ fileName: 'cats/1.png', folder: 'cats' }, { fileName: '2.png', folder: null }])).toEqual([{ fileName: 'cats/1.png', label: 'cats', split: null }]);
  });
});
