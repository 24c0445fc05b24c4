import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { loadConfig } from '../../lib/config';
import { ModelNotInstalledError } from '../../lib/ml/imageEncoder';
import { decodeDetections, loadObjectDetector, type Detection, type ObjectDetector } from '../../lib/ml/objectDetector';

const photo = (name: string) => path.join(__dirname, '..', 'fixtures', 'photos', `${name}.jpg`);
const best = (detections: Detection[], label: string) => detections.find((d) => d.label === label);

describe('the real object detector (CenterNet MobileNetV3, COCO, installed by npm install)', () => {
  let detector: ObjectDetector;

  beforeAll(async () => {
    detector = await loadObjectDetector(loadConfig({}).models.dir, undefined, 2);
  });
  afterAll(() => detector.close());

  it('names its model and the 80 COCO classes', () => {
    expect(detector.modelId).toBe('centernet-mobilenetv3-coco@1');
    expect(detector.labels).toHaveLength(80);
    expect(detector.labels.slice(0, 4)).toEqual(['person', 'bicycle', 'car', 'motorcycle']);
  });

  it('finds the person, the motorcycle, the cup and the cat (taken for a dog first) in real photos, with plausible boxes', async () => {
    const [astronaut, motorcycle, coffee, rocket] = await detector.detect(['astronaut', 'motorcycle_left', 'coffee', 'rocket'].map(photo));
    const [chelsea] = await detector.detect([photo('chelsea')], { minConfidence: 0.2 });
    // The astronaut fills the left two thirds of the picture, head to bottom edge.
    expect(astronaut[0].label).toBe('person');
    expect(astronaut[0].confidence).toBeGreaterThan(0.5);
    expect(astronaut[0].box.x).toBeLessThan(0.15);
    expect(astronaut[0].box.width).toBeGreaterThan(0.5);
    expect(astronaut[0].box.width).toBeLessThan(0.85);
    expect(astronaut[0].box.height).toBeGreaterThan(0.8);
    // One motorcycle, across most of the frame (overlapping peaks of it are merged).
    expect(motorcycle.filter((d) => d.label === 'motorcycle')).toHaveLength(1);
    expect(best(motorcycle, 'motorcycle')!.box.width).toBeGreaterThan(0.6);
    expect(best(coffee, 'cup')).toBeDefined();
    // The model is unsure of the cat: dog 0.47 first, cat 0.30 on the same box (kept: another class).
    expect(['cat', 'dog']).toContain(chelsea[0].label);
    expect(chelsea[0].box.width).toBeGreaterThan(0.8);
    expect(best(chelsea, 'cat')?.box).toEqual(best(chelsea, 'dog')?.box);
    // Nothing of COCO's 80 classes in a rocket on its launch pad.
    expect(rocket).toEqual([]);
    for (const detection of [...astronaut, ...motorcycle, ...coffee, ...chelsea]) {
      const { x, y, width, height } = detection.box;
      expect(Math.min(x, y, width, height)).toBeGreaterThanOrEqual(0);
      expect(x + width).toBeLessThanOrEqual(1);
      expect(y + height).toBeLessThanOrEqual(1);
    }
  });

  it('gives the same answer for an image alone or in a batch, from a path or from bytes', async () => {
    const bytes = fs.readFileSync(photo('grace_hopper'));
    const [alone] = await detector.detect([bytes]);
    const batch = await detector.detect(['astronaut', 'grace_hopper', 'coffee'].map(photo));
    expect(alone[0].label).toBe('person');
    expect(batch[1]).toHaveLength(alone.length);
    batch[1].forEach((d, i) => {
      expect(d.label).toBe(alone[i].label);
      expect(d.confidence).toBeCloseTo(alone[i].confidence, 4);
      expect(d.box.x).toBeCloseTo(alone[i].box.x, 4);
    });
  });

  it('reports boxes in fractions of the image as shown, whatever its size', async () => {
    const wide = await sharp(photo('astronaut')).resize(768, 384, { fit: 'fill' }).jpeg().toBuffer();
    const [[person]] = await detector.detect([wide]);
    const [[original]] = await detector.detect([photo('astronaut')]);
    expect(person.label).toBe('person');
    expect(Math.abs(person.box.x - original.box.x)).toBeLessThan(0.05);
    expect(Math.abs(person.box.width - original.box.width)).toBeLessThan(0.05);
  });

  it('honours minConfidence and maxObjects', async () => {
    const [loose] = await detector.detect([photo('chelsea')], { minConfidence: 0.1 });
    const [strict] = await detector.detect([photo('chelsea')], { minConfidence: 0.9 });
    const [two] = await detector.detect([photo('chelsea')], { minConfidence: 0.1, maxObjects: 2 });
    expect(loose.length).toBeGreaterThan(2);
    expect(strict).toEqual([]);
    expect(two).toEqual(loose.slice(0, 2));
    expect(await detector.detect([])).toEqual([]);
  });
});

describe('decoding detections', () => {
  const labels = ['person', 'cat'];
  // [x1, y1, x2, y2, score, class] in pixels of a 100 px input, best first.
  const rows = Float32Array.from([
    ...[10, 10, 60, 90, 0.9, 0], // a person
    ...[12, 11, 61, 88, 0.8, 0], // the same person again: suppressed
    ...[10, 10, 60, 90, 0.7, 1], // a cat on the same box: another class, kept
    ...[-5, 50, 40, 120, 0.6, 0], // another person, partly outside: clipped
    ...[0, 0, 10, 10, 0.1, 1], // too weak
  ]);

  it('keeps one box per object and class, clipped to the image, above the threshold', () => {
    const detections = decodeDetections(rows, 100, labels);
    expect(detections.map((d) => [d.label, d.confidence])).toEqual([
      ['person', expect.closeTo(0.9)],
      ['cat', expect.closeTo(0.7)],
      ['person', expect.closeTo(0.6)],
    ]);
    expect(detections[0].box).toEqual({ x: expect.closeTo(0.1), y: expect.closeTo(0.1), width: expect.closeTo(0.5), height: expect.closeTo(0.8) });
    expect(detections[2].box).toEqual({ x: 0, y: expect.closeTo(0.5), width: expect.closeTo(0.4), height: expect.closeTo(0.5) });
  });
});

describe('a missing object detector', () => {
  it('throws ModelNotInstalledError when the manifest is missing', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'models-'));
    try {
      await expect(loadObjectDetector(empty)).rejects.toBeInstanceOf(ModelNotInstalledError);
      await expect(loadObjectDetector(empty, 'no-such-model')).rejects.toThrow(/not installed/);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  it('throws ModelNotInstalledError when the manifest names a missing file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'models-'));
    try {
      const manifest = { id: 'x@1', file: 'x.onnx', input: 'images', inputFormat: 'uint8-nhwc', size: 512, resize: 'fill', output: 'detections', maxDetections: 100, labels: ['person'] };
      fs.writeFileSync(path.join(dir, 'x.json'), JSON.stringify(manifest));
      await expect(loadObjectDetector(dir, 'x')).rejects.toBeInstanceOf(ModelNotInstalledError);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
