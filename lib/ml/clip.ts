import fs from 'node:fs';
import path from 'node:path';
import type * as HfTokenizers from '@huggingface/tokenizers' with { 'resolution-mode': 'import' };
import * as ort from 'onnxruntime-node';
import { z } from 'zod';
import { imagePixels, imageTensor, l2Normalise, ModelNotInstalledError } from './imageEncoder';

// @huggingface/tokenizers declares its types as ESM; under Node it ships a CommonJS build, loaded here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Tokenizer } = require('@huggingface/tokenizers') as typeof HfTokenizers;

/**
 * Bring-your-own CLIP: a site puts a CLIP model's two ONNX towers, its Hugging Face tokenizer.json
 * and a `clip.json` manifest into MODELS_DIR (docs/models.md, "Bring your own CLIP"). Images and texts
 * come out as L2-normalised vectors of one shared space, so a text query ranks images directly.
 */

export const CLIP_MANIFEST = 'clip.json';

export interface ClipModel {
  /** The manifest's id, with its version suffix (`clip-vit-b32@1`): vectors of two ids are never mixed. */
  modelId: string;
  dim: number;
  /** One unit vector per image (file path or encoded bytes). */
  encodeImages(images: Array<string | Buffer>): Promise<Float32Array[]>;
  /** One unit vector per text, in the images' space. */
  encodeTexts(texts: string[]): Promise<Float32Array[]>;
  close(): Promise<void>;
}

/** clip.json is there but cannot be used as it is: the message says what to fix. */
export class ClipManifestError extends Error {}

const fileName = z.string().min(1, 'expected a file name (relative to MODELS_DIR)');
const tensorName = z.string().min(1, 'expected a tensor name of the ONNX graph');
const rgb = z.tuple([z.number(), z.number(), z.number()], { message: 'expected 3 numbers (R, G, B)' });

const manifestSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9._/-]+@\d+$/, 'expected a name with a version suffix, such as "clip-vit-b32@1"'),
  /** The dimension of both towers' outputs (the shared space). */
  dim: z.number().int().positive(),
  vision: z.object({
    file: fileName,
    input: tensorName,
    /** The projected image embedding, [batch, dim] (`image_embeds` in Hugging Face exports). */
    output: tensorName,
    size: z.number().int().positive(),
    /** fill: squash to size x size; center-crop: short side to size, then the centre (as CLIP's own preprocessing). */
    resize: z.enum(['fill', 'center-crop']),
    /** Per channel, in 0..255 pixel units: the input is (pixel - mean) / std. */
    mean: rgb,
    std: rgb.refine((std) => std.every((value) => value !== 0), 'expected 3 numbers other than 0'),
  }),
  text: z.object({
    file: fileName,
    inputIds: tensorName.default('input_ids'),
    /** Omit it for graphs that take no attention mask. */
    attentionMask: tensorName.optional(),
    /** The projected text embedding, [batch, dim] (`text_embeds` in Hugging Face exports). */
    output: tensorName,
    /** Longest token sequence, start and end tokens included (77 for OpenAI's CLIP); longer texts are cut. */
    maxTokens: z.number().int().min(2).default(77),
    /** A Hugging Face tokenizer.json (byte-level BPE for CLIP). */
    tokenizer: fileName,
    /** The id rows shorter than the batch's longest are padded with (default: the tokenizer's end token). */
    padTokenId: z.number().int().min(0).optional(),
    /** Pad every row to maxTokens: for graphs exported with a fixed sequence length. */
    padToMaxTokens: z.boolean().default(false),
  }),
});
export type ClipManifest = z.infer<typeof manifestSchema>;

export interface ClipTokenizer {
  /** Token ids with the start and end tokens, at most maxTokens (a longer text keeps its end token). */
  encode(text: string): number[];
  /** The end-of-text id, which pads shorter rows unless the manifest names another. */
  endTokenId: number;
}

/** Whether a CLIP manifest was dropped into MODELS_DIR (its files are checked when it is loaded). */
export function clipInstalled(modelsDir: string): boolean {
  return fs.existsSync(path.join(modelsDir, CLIP_MANIFEST));
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(top level)'}: ${issue.message}`)
    .join('; ');
}

/** Reads and checks clip.json and that the files it names exist. */
export function readClipManifest(modelsDir: string): ClipManifest {
  const manifestPath = path.join(modelsDir, CLIP_MANIFEST);
  if (!fs.existsSync(manifestPath)) {
    throw new ModelNotInstalledError(`CLIP is not installed: no ${CLIP_MANIFEST} in ${modelsDir} (docs/models.md, "Bring your own CLIP")`);
  }
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
  } catch (error) {
    throw new ClipManifestError(`${manifestPath} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) throw new ClipManifestError(`${manifestPath} is not a valid CLIP manifest: ${describeIssues(parsed.error)}`);
  const manifest = parsed.data;
  for (const [field, file] of [['vision.file', manifest.vision.file], ['text.file', manifest.text.file], ['text.tokenizer', manifest.text.tokenizer]]) {
    if (!fs.existsSync(path.resolve(modelsDir, file))) {
      throw new ClipManifestError(`${manifestPath}: ${field} names "${file}", which is not in ${modelsDir}`);
    }
  }
  return manifest;
}

/** A CLIP tokenizer from the text of a Hugging Face tokenizer.json. */
export function createClipTokenizer(tokenizerJson: unknown, maxTokens: number): ClipTokenizer {
  let tokenizer: HfTokenizers.Tokenizer;
  try {
    tokenizer = new Tokenizer(tokenizerJson as object, {});
  } catch (error) {
    throw new ClipManifestError(`The CLIP tokenizer cannot be read: ${(error as Error).message}`);
  }
  const bare = tokenizer.encode('').ids;
  if (bare.length < 1) throw new ClipManifestError('The CLIP tokenizer adds no start and end tokens (its post_processor is missing)');
  const endTokenId = bare[bare.length - 1];
  return {
    endTokenId,
    encode(text) {
      const { ids } = tokenizer.encode(text);
      return ids.length <= maxTokens ? ids : [...ids.slice(0, maxTokens - 1), ids[ids.length - 1]];
    },
  };
}

function checkNames(session: ort.InferenceSession, tower: string, inputs: string[], output: string): void {
  const file = `the ${tower} tower`;
  for (const input of inputs) {
    if (!session.inputNames.includes(input)) {
      throw new ClipManifestError(`${CLIP_MANIFEST}: ${file} has no input "${input}" (its inputs: ${session.inputNames.join(', ')})`);
    }
  }
  const unfed = session.inputNames.filter((name) => !inputs.includes(name));
  if (unfed.length > 0) {
    throw new ClipManifestError(`${CLIP_MANIFEST}: ${file} also wants ${unfed.map((name) => `"${name}"`).join(', ')}, which the manifest does not name`);
  }
  if (!session.outputNames.includes(output)) {
    throw new ClipManifestError(`${CLIP_MANIFEST}: ${file} has no output "${output}" (its outputs: ${session.outputNames.join(', ')})`);
  }
}

/** Rows of a [batch, dim] output, each normalised; anything else is a manifest naming the wrong output. */
function unitRows(tensor: ort.Tensor, rows: number, dim: number, what: string): Float32Array[] {
  if (tensor.type !== 'float32' || tensor.dims.length !== 2 || tensor.dims[0] !== rows || tensor.dims[1] !== dim) {
    throw new ClipManifestError(
      `${CLIP_MANIFEST}: ${what} is ${tensor.type} [${tensor.dims.join(', ')}], expected float32 [${rows}, ${dim}] (the projected embedding, dim ${dim})`,
    );
  }
  const data = tensor.data as Float32Array;
  return Array.from({ length: rows }, (_, i) => l2Normalise(data.slice(i * dim, (i + 1) * dim)));
}

async function openSession(file: string, threads: number): Promise<ort.InferenceSession> {
  try {
    return await ort.InferenceSession.create(file, { intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: 'all' });
  } catch (error) {
    throw new ClipManifestError(`${file} cannot be loaded by onnxruntime: ${(error as Error).message}`);
  }
}

/** Loads the CLIP model described by MODELS_DIR/clip.json: both towers and the tokenizer. */
export async function loadClip(modelsDir: string, threads = 1): Promise<ClipModel> {
  const manifest = readClipManifest(modelsDir);
  const { vision, text, dim } = manifest;
  let tokenizerJson: unknown;
  try {
    tokenizerJson = JSON.parse(fs.readFileSync(path.resolve(modelsDir, text.tokenizer), 'utf8'));
  } catch (error) {
    throw new ClipManifestError(`${CLIP_MANIFEST}: text.tokenizer "${text.tokenizer}" is not valid JSON: ${(error as Error).message}`);
  }
  const tokenizer = createClipTokenizer(tokenizerJson, text.maxTokens);
  const padId = BigInt(text.padTokenId ?? tokenizer.endTokenId);
  const textInputs = text.attentionMask ? [text.inputIds, text.attentionMask] : [text.inputIds];

  const visionSession = await openSession(path.resolve(modelsDir, vision.file), threads);
  let textSession: ort.InferenceSession;
  try {
    checkNames(visionSession, 'vision', [vision.input], vision.output);
    textSession = await openSession(path.resolve(modelsDir, text.file), threads);
  } catch (error) {
    await visionSession.release();
    throw error;
  }
  try {
    checkNames(textSession, 'text', textInputs, text.output);
  } catch (error) {
    await Promise.all([visionSession.release(), textSession.release()]);
    throw error;
  }
  const tensorSpec = { ...vision, inputFormat: 'float32-nchw' as const };

  return {
    modelId: manifest.id,
    dim,
    async encodeImages(images) {
      if (images.length === 0) return [];
      const batch = await Promise.all(images.map((image) => imagePixels(image, vision)));
      const result = await visionSession.run({ [vision.input]: imageTensor(batch, tensorSpec) });
      return unitRows(result[vision.output], images.length, dim, `the vision output "${vision.output}"`);
    },
    async encodeTexts(texts) {
      if (texts.length === 0) return [];
      const encoded = texts.map((value) => tokenizer.encode(value));
      const length = text.padToMaxTokens ? text.maxTokens : Math.max(...encoded.map((ids) => ids.length));
      const ids = new BigInt64Array(texts.length * length).fill(padId);
      const mask = new BigInt64Array(texts.length * length);
      encoded.forEach((tokens, row) =>
        tokens.forEach((token, i) => {
          ids[row * length + i] = BigInt(token);
          mask[row * length + i] = 1n;
        }),
      );
      const shape = [texts.length, length];
      const feeds: Record<string, ort.Tensor> = { [text.inputIds]: new ort.Tensor('int64', ids, shape) };
      if (text.attentionMask) feeds[text.attentionMask] = new ort.Tensor('int64', mask, shape);
      const result = await textSession.run(feeds);
      return unitRows(result[text.output], texts.length, dim, `the text output "${text.output}"`);
    },
    async close() {
      await Promise.all([visionSession.release(), textSession.release()]);
    },
  };
}
