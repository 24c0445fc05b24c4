import fs from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { decodeModelInput } from '../media/imageAnalysis';
import { z } from 'zod';

/**
 * How to feed and read one image-embedding ONNX model. Every model we support (the shipped
 * EfficientNet-Lite0, SSCD, a downloaded CLIP image tower) is described by such a manifest, so one
 * loader serves them all.
 */
const manifestSchema = z.object({
  id: z.string().min(1),
  file: z.string().min(1),
  input: z.string().min(1),
  /** float32 NCHW normalised with mean/std, or raw uint8 NHWC (models that normalise inside). */
  inputFormat: z.enum(['float32-nchw', 'uint8-nhwc']),
  size: z.number().int().positive(),
  /** fill: squash to size x size; center-crop: short side to size, then crop the centre. */
  resize: z.enum(['fill', 'center-crop']),
  mean: z.tuple([z.number(), z.number(), z.number()]).default([0, 0, 0]),
  std: z.tuple([z.number(), z.number(), z.number()]).default([1, 1, 1]),
  output: z.string().min(1),
  dim: z.number().int().positive(),
  /** The model's own classifier head, read in the same forward pass (image tagging needs no second pass). */
  classifier: z
    .object({
      output: z.string().min(1),
      /** A JSON file in MODELS_DIR whose `labels` array names the classes in output order. */
      labels: z.string().min(1),
    })
    .optional(),
});
export type ImageModelManifest = z.infer<typeof manifestSchema>;

export interface ImageEncoderInfo {
  modelId: string;
  dim: number;
}

/** A class of the model's classifier with its softmax probability. */
export interface PredictedClass {
  /** The class's position in the classifier output (names can repeat: ImageNet has two "crane"s). */
  index: number;
  label: string;
  confidence: number;
}

export interface EncodedImage {
  vector: Float32Array;
  /** The most probable classes, best first; empty when the model has no classifier head. */
  classes: PredictedClass[];
}

export interface ImageEncoder extends ImageEncoderInfo {
  /** Whether `classify` yields classes (the manifest names a classifier head). */
  hasClassifier: boolean;
  /** How an image becomes this model's input pixels (`imagePixels`): the ingest prepares them once, under this spec. */
  input: ImageInputSpec;
  /** L2-normalised embeddings, one per image (file path or encoded bytes). */
  encode(images: Array<string | Buffer>): Promise<Float32Array[]>;
  /** Embeddings and the top classes of the same forward pass. */
  encodeAndClassify(images: Array<string | Buffer>): Promise<EncodedImage[]>;
  /** The same from pixels already brought to the model's input (`input.size` squared x 3 RGB bytes each, as `imagePixels` makes them). */
  encodePixels(pixels: Buffer[]): Promise<EncodedImage[]>;
  close(): Promise<void>;
}

/** How many classes are kept per image: enough for tags and captions, small enough to store with every media row. */
export const TOP_CLASSES = 5;

export class ModelNotInstalledError extends Error {}

export function readImageModelManifest(modelsDir: string, name: string): ImageModelManifest & { path: string } {
  const manifestPath = path.join(modelsDir, `${name}.json`);
  if (!fs.existsSync(manifestPath)) {
    throw new ModelNotInstalledError(`Image model "${name}" is not installed in ${modelsDir}: run "npm run setup:models"`);
  }
  const manifest = manifestSchema.parse(JSON.parse(fs.readFileSync(manifestPath, 'utf8')));
  return { ...manifest, path: path.join(modelsDir, manifest.file) };
}

/** How an image is brought to a model's input: its side and how it is resized (shared with the CLIP loader). */
export type ImageInputSpec = Pick<ImageModelManifest, 'size' | 'resize'>;
/** How resized RGB pixels become the model's input tensor. */
export type ImageTensorSpec = Pick<ImageModelManifest, 'inputFormat' | 'size' | 'mean' | 'std'>;

/** The image decoded (EXIF rotation applied, alpha dropped, sRGB) and resized: `size` x `size` x 3 RGB bytes. */
export function imagePixels(image: string | Buffer, manifest: ImageInputSpec): Promise<Buffer> {
  return decodeModelInput(image, manifest);
}

/** The `count` most probable classes by softmax, in one pass over the logits (no sort of all 1,000). */
function topClasses(logits: Float32Array, labels: readonly string[], count: number): PredictedClass[] {
  let max = -Infinity;
  for (const value of logits) if (value > max) max = value;
  let sum = 0;
  const best: number[] = [];
  for (let i = 0; i < logits.length; i++) {
    sum += Math.exp(logits[i] - max);
    if (best.length < count || logits[i] > logits[best[best.length - 1]]) {
      // Insert after the classes at least as probable (equal logits keep their class order).
      let at = Math.min(best.length, count - 1);
      while (at > 0 && logits[best[at - 1]] < logits[i]) at--;
      best.splice(at, 0, i);
      if (best.length > count) best.pop();
    }
  }
  return best.map((index) => ({ index, label: labels[index], confidence: Math.exp(logits[index] - max) / sum }));
}

function readClassLabels(modelsDir: string, file: string): string[] {
  const { labels } = z.object({ labels: z.array(z.string()) }).parse(JSON.parse(fs.readFileSync(path.join(modelsDir, file), 'utf8')));
  return labels;
}

/** A batch of resized RGB images (from `imagePixels`) as the model's input tensor. */
export function imageTensor(batch: Buffer[], spec: ImageTensorSpec): ort.Tensor {
  const { size } = spec;
  if (spec.inputFormat === 'uint8-nhwc') {
    const joined = Buffer.concat(batch);
    return new ort.Tensor('uint8', new Uint8Array(joined.buffer, joined.byteOffset, joined.length), [batch.length, size, size, 3]);
  }
  const plane = size * size;
  const data = new Float32Array(batch.length * 3 * plane);
  // Each channel's 256 normalised values, computed once: the same floats as normalising every pixel.
  const [red, green, blue] = [0, 1, 2].map((c) => Float32Array.from({ length: 256 }, (_, value) => (value - spec.mean[c]) / spec.std[c]));
  batch.forEach((rgb, b) => {
    const offset = b * 3 * plane;
    for (let p = 0, i = 0; p < plane; p++, i += 3) {
      data[offset + p] = red[rgb[i]];
      data[offset + plane + p] = green[rgb[i + 1]];
      data[offset + 2 * plane + p] = blue[rgb[i + 2]];
    }
  });
  return new ort.Tensor('float32', data, [batch.length, 3, size, size]);
}

export function l2Normalise(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm) || 1;
  return vector.map((value) => value / norm);
}

export async function loadImageEncoder(modelsDir: string, name: string, threads = 1): Promise<ImageEncoder> {
  const manifest = readImageModelManifest(modelsDir, name);
  const session = await ort.InferenceSession.create(manifest.path, {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  });
  const { classifier } = manifest;
  const classLabels = classifier ? readClassLabels(modelsDir, classifier.labels) : [];

  const pixelBytes = manifest.size * manifest.size * 3;

  async function encodePixels(batch: Buffer[]): Promise<EncodedImage[]> {
    if (batch.length === 0) return [];
    for (const pixels of batch) {
      if (pixels.length !== pixelBytes) throw new Error(`model input of ${pixels.length} bytes, ${manifest.id} takes ${pixelBytes}`);
    }
    const result = await session.run({ [manifest.input]: imageTensor(batch, manifest) });
    const output = result[manifest.output].data as Float32Array;
    const logits = classifier ? (result[classifier.output].data as Float32Array) : undefined;
    const n = classLabels.length;
    return batch.map((_, i) => ({
      vector: l2Normalise(output.slice(i * manifest.dim, (i + 1) * manifest.dim)),
      classes: logits ? topClasses(logits.slice(i * n, (i + 1) * n), classLabels, TOP_CLASSES) : [],
    }));
  }

  async function encodeAndClassify(images: Array<string | Buffer>): Promise<EncodedImage[]> {
    return encodePixels(await Promise.all(images.map((image) => imagePixels(image, manifest))));
  }

  return {
    modelId: manifest.id,
    dim: manifest.dim,
    hasClassifier: classifier !== undefined,
    input: { size: manifest.size, resize: manifest.resize },
    encodeAndClassify,
    encodePixels,
    encode: async (images) => (await encodeAndClassify(images)).map((encoded) => encoded.vector),
    close: () => session.release(),
  };
}
