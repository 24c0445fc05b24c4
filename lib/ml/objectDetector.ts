import fs from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import sharp from 'sharp';
import { z } from 'zod';
import { ModelNotInstalledError } from './imageEncoder';

/**
 * How to feed and read an ONNX object detector whose graph ends in decoded detections: rows of
 * [x1, y1, x2, y2, score, class] in pixels of the square model input, best score first (the
 * CenterNet of scripts/models/convert_centernet.py). Written by the model's setup script.
 */
const manifestSchema = z.object({
  id: z.string().min(1),
  file: z.string().min(1),
  input: z.string().min(1),
  /** Raw RGB bytes, batch x size x size x 3: the model reads 0..255 itself. */
  inputFormat: z.literal('uint8-nhwc'),
  size: z.number().int().positive(),
  /** fill: the image squashed to size x size, so box fractions map straight back onto it. */
  resize: z.literal('fill'),
  output: z.string().min(1),
  /** Rows per image in the output. */
  maxDetections: z.number().int().positive(),
  labels: z.array(z.string().min(1)).min(1),
});
export type ObjectDetectorManifest = z.infer<typeof manifestSchema>;

/** An object found in an image; the box is in fractions 0..1 of the (EXIF-rotated) image. */
export interface Detection {
  label: string;
  confidence: number;
  box: { x: number; y: number; width: number; height: number };
}

export interface DetectOptions {
  /** Detections below this score are dropped (default DEFAULT_MIN_CONFIDENCE). */
  minConfidence?: number;
  /** At most this many detections per image, best first (default DEFAULT_MAX_OBJECTS). */
  maxObjects?: number;
}

export interface ObjectDetector {
  modelId: string;
  labels: readonly string[];
  /** Detections per image (file path or encoded bytes), best first. */
  detect(images: Array<string | Buffer>, options?: DetectOptions): Promise<Detection[][]>;
  close(): Promise<void>;
}

export const DEFAULT_OBJECT_MODEL = 'centernet-mobilenetv3-coco';
/**
 * CenterNet scores are heatmap peaks, lower than a two-stage detector's. On the 53 photos of
 * bench/eval, 0.3 finds 73 % of the listed objects with other labels in 19 photos; 0.4 finds 64 % with
 * other labels in 8 (docs/models.md).
 */
export const DEFAULT_MIN_CONFIDENCE = 0.3;
export const DEFAULT_MAX_OBJECTS = 20;
/** Boxes of one class overlapping more than this (intersection over union) are one object: the best is kept. */
export const NMS_IOU = 0.5;
/**
 * Images decoded at a time. Each runs through the model alone: on this 2-core machine batch 1 is the
 * fastest per image (batch 8 is 1.5-2x slower) and takes ~80 MB of activations, batch 8 ~650 MB.
 */
const DECODE_AHEAD = 8;

export function readObjectDetectorManifest(modelsDir: string, name: string): ObjectDetectorManifest & { path: string } {
  const manifestPath = path.join(modelsDir, `${name}.json`);
  const notInstalled = () =>
    new ModelNotInstalledError(`Object detector "${name}" is not installed in ${modelsDir}: run "npm run setup:models"`);
  if (!fs.existsSync(manifestPath)) throw notInstalled();
  const manifest = manifestSchema.parse(JSON.parse(fs.readFileSync(manifestPath, 'utf8')));
  const modelPath = path.join(modelsDir, manifest.file);
  if (!fs.existsSync(modelPath)) throw notInstalled();
  return { ...manifest, path: modelPath };
}

type Box = Detection['box'];

function iou(a: Box, b: Box): number {
  const width = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const height = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  if (width <= 0 || height <= 0) return 0;
  const intersection = width * height;
  return intersection / (a.width * a.height + b.width * b.height - intersection);
}

const clamp01 = (value: number) => Math.min(1, Math.max(0, value));

/**
 * Rows [x1, y1, x2, y2, score, class] (input pixels, best first) -> detections above minConfidence,
 * boxes clipped to the image, one per object and class (greedy non-maximum suppression per class).
 */
export function decodeDetections(
  rows: Float32Array,
  size: number,
  labels: readonly string[],
  { minConfidence = DEFAULT_MIN_CONFIDENCE, maxObjects = DEFAULT_MAX_OBJECTS }: DetectOptions = {},
): Detection[] {
  const candidates: Array<Detection & { classId: number }> = [];
  for (let offset = 0; offset + 6 <= rows.length; offset += 6) {
    const confidence = rows[offset + 4];
    const classId = rows[offset + 5];
    if (!(confidence >= minConfidence) || labels[classId] === undefined) continue;
    const x1 = clamp01(rows[offset] / size);
    const y1 = clamp01(rows[offset + 1] / size);
    const x2 = clamp01(rows[offset + 2] / size);
    const y2 = clamp01(rows[offset + 3] / size);
    if (x2 <= x1 || y2 <= y1) continue;
    candidates.push({ label: labels[classId], classId, confidence, box: { x: x1, y: y1, width: x2 - x1, height: y2 - y1 } });
  }
  candidates.sort((a, b) => b.confidence - a.confidence);
  const kept: Array<Detection & { classId: number }> = [];
  for (const candidate of candidates) {
    if (kept.length >= maxObjects) break;
    if (kept.some((other) => other.classId === candidate.classId && iou(other.box, candidate.box) > NMS_IOU)) continue;
    kept.push(candidate);
  }
  return kept.map(({ label, confidence, box }) => ({ label, confidence, box }));
}

async function squarePixels(image: string | Buffer, size: number): Promise<Buffer> {
  return sharp(image).rotate().removeAlpha().toColourspace('srgb').resize(size, size, { fit: 'fill' }).raw().toBuffer();
}

export async function loadObjectDetector(modelsDir: string, name = DEFAULT_OBJECT_MODEL, threads = 1): Promise<ObjectDetector> {
  const manifest = readObjectDetectorManifest(modelsDir, name);
  const session = await ort.InferenceSession.create(manifest.path, {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  });
  const { size, maxDetections, labels } = manifest;
  const rowsPerImage = maxDetections * 6;

  async function run(pixels: Buffer): Promise<Float32Array> {
    const input = new ort.Tensor('uint8', new Uint8Array(pixels), [1, size, size, 3]);
    const result = await session.run({ [manifest.input]: input }, [manifest.output]);
    return (result[manifest.output].data as Float32Array).subarray(0, rowsPerImage);
  }

  return {
    modelId: manifest.id,
    labels,
    async detect(images, options = {}) {
      const detections: Detection[][] = [];
      for (let start = 0; start < images.length; start += DECODE_AHEAD) {
        const chunk = await Promise.all(images.slice(start, start + DECODE_AHEAD).map((image) => squarePixels(image, size)));
        for (const pixels of chunk) detections.push(decodeDetections(await run(pixels), size, labels, options));
      }
      return detections;
    },
    close: () => session.release(),
  };
}
