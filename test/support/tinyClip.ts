import fs from 'node:fs';
import path from 'node:path';
import { DataType, onnxModel } from './onnxWriter';

/**
 * A tiny CLIP-shaped model for tests, written at test time (no weights are committed): a vision tower
 * (2x2 stride-2 convolution to 4 channels, global average pool, dense layer to 8), a text tower (token
 * embeddings, mean over the attention mask, 8x8 projection) and a byte-level BPE tokenizer.json laid
 * out as OpenAI CLIP's (byte symbols, the same with `</w>`, merges, then the two special tokens), with
 * a handful of merges. Weights are fixed functions of their position, so the expected vectors can be
 * computed here in plain TypeScript (see `expectedImageEmbedding` and `expectedTextEmbedding`).
 */

export const TINY_DIM = 8;
export const TINY_SIZE = 16;
export const TINY_MAX_TOKENS = 16;
const CONV_OUT = 4;

export const TINY_MERGES = ['p h', 'o t', 'ph ot', 'phot o</w>', 'c a', 'ca t</w>', 'o f</w>', 'd o'];

/** GPT-2's reversible map of bytes to printable characters, in the order CLIP's vocabulary lists them. */
function byteSymbols(): string[] {
  const printable: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) printable.push(b);
  for (let b = 0xa1; b <= 0xac; b++) printable.push(b);
  for (let b = 0xae; b <= 0xff; b++) printable.push(b);
  const symbols = printable.map((b) => String.fromCodePoint(b));
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    if (!printable.includes(b)) symbols.push(String.fromCodePoint(256 + extra++));
  }
  return symbols;
}

export function tinyVocabulary(): string[] {
  const symbols = byteSymbols();
  return [...symbols, ...symbols.map((symbol) => `${symbol}</w>`), ...TINY_MERGES.map((merge) => merge.replace(' ', '')), '<|startoftext|>', '<|endoftext|>'];
}

export const TINY_VOCAB_SIZE = 256 * 2 + TINY_MERGES.length + 2;
export const START_ID = TINY_VOCAB_SIZE - 2;
export const END_ID = TINY_VOCAB_SIZE - 1;

/** The tokenizer.json of OpenAI's CLIP (normalizer, pre-tokenizer, post-processor, decoder) with the tiny vocabulary. */
export function tinyTokenizerJson(): object {
  const special = (id: number, content: string) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: true, special: true });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [special(START_ID, '<|startoftext|>'), special(END_ID, '<|endoftext|>')],
    normalizer: { type: 'Sequence', normalizers: [{ type: 'NFC' }, { type: 'Replace', pattern: { Regex: '\\s+' }, content: ' ' }, { type: 'Lowercase' }] },
    pre_tokenizer: {
      type: 'Sequence',
      pretokenizers: [
        {
          type: 'Split',
          pattern: { Regex: "<\\|startoftext\\|>|<\\|endoftext\\|>|'s|'t|'re|'ve|'m|'ll|'d|[\\p{L}]+|[\\p{N}]|[^\\s\\p{L}\\p{N}]+" },
          behavior: 'Removed',
          invert: true,
        },
        { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false },
      ],
    },
    post_processor: { type: 'RobertaProcessing', sep: ['<|endoftext|>', END_ID], cls: ['<|startoftext|>', START_ID], trim_offsets: false, add_prefix_space: false },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: '<|endoftext|>',
      continuing_subword_prefix: '',
      end_of_word_suffix: '</w>',
      fuse_unk: false,
      byte_fallback: false,
      vocab: Object.fromEntries(tinyVocabulary().map((token, id) => [token, id])),
      merges: TINY_MERGES,
    },
  };
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
// Fixed weights, different in every position; rounded to float32 as the graph stores them.
const f32 = (value: number) => Math.fround(value);
const convWeight = (o: number, c: number, kh: number, kw: number) => f32(Math.sin(1 + o * 1.7 + c * 0.9 + kh * 0.5 + kw * 0.3) / 4);
const convBias = (o: number) => f32(0.05 * (o - 1.5));
const denseWeight = (i: number, j: number) => f32(Math.cos(0.7 * i + 1.1 * j + 0.2));
const denseBias = (j: number) => f32(0.01 * j);
const tokenEmbedding = (v: number, d: number) => f32(Math.sin(0.37 * v + 1.3 * d) + 0.1 * Math.cos(v * (d + 1)));
const projection = (i: number, j: number) => f32(i === j ? 1 : Math.sin(i * 3 + j) / 3);

export const TINY_MEAN: [number, number, number] = [122.77, 116.75, 104.09];
export const TINY_STD: [number, number, number] = [68.5, 66.63, 70.32];

export function tinyVisionModel(): Buffer {
  return onnxModel({
    name: 'tiny_clip_vision',
    nodes: [
      { op: 'Conv', inputs: ['pixel_values', 'conv_w', 'conv_b'], outputs: ['conv'], attributes: { kernel_shape: [2, 2], strides: [2, 2] } },
      { op: 'GlobalAveragePool', inputs: ['conv'], outputs: ['pooled'] },
      { op: 'Flatten', inputs: ['pooled'], outputs: ['features'], attributes: { axis: 1 } },
      { op: 'Gemm', inputs: ['features', 'dense_w', 'dense_b'], outputs: ['image_embeds'] },
    ],
    initializers: [
      { name: 'conv_w', dims: [CONV_OUT, 3, 2, 2], values: range(CONV_OUT * 12).map((i) => convWeight(Math.floor(i / 12), Math.floor(i / 4) % 3, Math.floor(i / 2) % 2, i % 2)) },
      { name: 'conv_b', dims: [CONV_OUT], values: range(CONV_OUT).map(convBias) },
      { name: 'dense_w', dims: [CONV_OUT, TINY_DIM], values: range(CONV_OUT * TINY_DIM).map((i) => denseWeight(Math.floor(i / TINY_DIM), i % TINY_DIM)) },
      { name: 'dense_b', dims: [TINY_DIM], values: range(TINY_DIM).map(denseBias) },
    ],
    inputs: [{ name: 'pixel_values', type: DataType.FLOAT, shape: ['batch', 3, TINY_SIZE, TINY_SIZE] }],
    outputs: [{ name: 'image_embeds', type: DataType.FLOAT, shape: ['batch', TINY_DIM] }],
  });
}

export function tinyTextModel(): Buffer {
  return onnxModel({
    name: 'tiny_clip_text',
    nodes: [
      { op: 'Gather', inputs: ['token_embedding', 'input_ids'], outputs: ['tokens'], attributes: { axis: 0 } },
      { op: 'Cast', inputs: ['attention_mask'], outputs: ['mask'], attributes: { to: DataType.FLOAT } },
      { op: 'Unsqueeze', inputs: ['mask', 'axis_2'], outputs: ['mask_3d'] },
      { op: 'Mul', inputs: ['tokens', 'mask_3d'], outputs: ['masked'] },
      { op: 'ReduceSum', inputs: ['masked', 'axis_1'], outputs: ['summed'], attributes: { keepdims: 0 } },
      { op: 'ReduceSum', inputs: ['mask', 'axis_1'], outputs: ['count'], attributes: { keepdims: 1 } },
      { op: 'Div', inputs: ['summed', 'count'], outputs: ['mean'] },
      { op: 'MatMul', inputs: ['mean', 'projection'], outputs: ['text_embeds'] },
    ],
    initializers: [
      { name: 'token_embedding', dims: [TINY_VOCAB_SIZE, TINY_DIM], values: range(TINY_VOCAB_SIZE * TINY_DIM).map((i) => tokenEmbedding(Math.floor(i / TINY_DIM), i % TINY_DIM)) },
      { name: 'projection', dims: [TINY_DIM, TINY_DIM], values: range(TINY_DIM * TINY_DIM).map((i) => projection(Math.floor(i / TINY_DIM), i % TINY_DIM)) },
      { name: 'axis_1', dims: [1], values: [1], int64: true },
      { name: 'axis_2', dims: [1], values: [2], int64: true },
    ],
    inputs: [
      { name: 'input_ids', type: DataType.INT64, shape: ['batch', 'sequence'] },
      { name: 'attention_mask', type: DataType.INT64, shape: ['batch', 'sequence'] },
    ],
    outputs: [{ name: 'text_embeds', type: DataType.FLOAT, shape: ['batch', TINY_DIM] }],
  });
}

/** clip.json's content, loosely typed so that tests can break it. */
export interface TinyClipManifest {
  id: unknown;
  dim: unknown;
  vision: Record<string, unknown>;
  text: Record<string, unknown>;
}

export function tinyClipManifest(): TinyClipManifest {
  return {
    id: 'tiny-clip@1',
    dim: TINY_DIM,
    vision: { file: 'tiny_vision.onnx', input: 'pixel_values', output: 'image_embeds', size: TINY_SIZE, resize: 'center-crop', mean: TINY_MEAN, std: TINY_STD },
    text: { file: 'tiny_text.onnx', inputIds: 'input_ids', attentionMask: 'attention_mask', output: 'text_embeds', maxTokens: TINY_MAX_TOKENS, tokenizer: 'tiny_tokenizer.json' },
  };
}

/** Writes the manifest, both towers and the tokenizer into `dir` (a MODELS_DIR); `manifest` replaces clip.json's content. */
export function writeTinyClip(dir: string, manifest: unknown = tinyClipManifest()): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'tiny_vision.onnx'), tinyVisionModel());
  fs.writeFileSync(path.join(dir, 'tiny_text.onnx'), tinyTextModel());
  fs.writeFileSync(path.join(dir, 'tiny_tokenizer.json'), JSON.stringify(tinyTokenizerJson()));
  fs.writeFileSync(path.join(dir, 'clip.json'), typeof manifest === 'string' ? manifest : JSON.stringify(manifest, null, 2));
}

function unit(vector: number[]): number[] {
  const norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  return vector.map((value) => value / norm);
}

/** The tiny vision tower's unit vector for an image of one flat colour, computed without onnxruntime. */
export function expectedImageEmbedding(colour: [number, number, number]): number[] {
  const input = colour.map((value, c) => (value - TINY_MEAN[c]) / TINY_STD[c]);
  const features = range(CONV_OUT).map(
    (o) => convBias(o) + range(3).reduce((sum, c) => sum + input[c] * (convWeight(o, c, 0, 0) + convWeight(o, c, 0, 1) + convWeight(o, c, 1, 0) + convWeight(o, c, 1, 1)), 0),
  );
  return unit(range(TINY_DIM).map((j) => denseBias(j) + features.reduce((sum, value, i) => sum + value * denseWeight(i, j), 0)));
}

/** The tiny text tower's unit vector for a sequence of token ids, computed without onnxruntime. */
export function expectedTextEmbedding(ids: number[]): number[] {
  const mean = range(TINY_DIM).map((d) => ids.reduce((sum, id) => sum + tokenEmbedding(id, d), 0) / ids.length);
  return unit(range(TINY_DIM).map((j) => mean.reduce((sum, value, i) => sum + value * projection(i, j), 0)));
}
