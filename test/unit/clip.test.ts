import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { ClipManifestError, clipInstalled, createClipTokenizer, loadClip, type ClipModel } from '../../lib/ml/clip';
import { ModelNotInstalledError } from '../../lib/ml/imageEncoder';
import {
  END_ID,
  expectedImageEmbedding,
  expectedTextEmbedding,
  START_ID,
  TINY_DIM,
  TINY_MAX_TOKENS,
  tinyClipManifest,
  tinyTokenizerJson,
  writeTinyClip,
  type TinyClipManifest,
} from '../support/tinyClip';

const photo = (name: string) => path.join(__dirname, '..', 'fixtures', 'photos', `${name}.jpg`);
const norm = (vector: Float32Array) => Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
const flat = (r: number, g: number, b: number) => sharp({ create: { width: 40, height: 30, channels: 3, background: { r, g, b } } }).png().toBuffer();

// Ids from the Rust `tokenizers` library (Python tokenizers==0.22.1, Tokenizer.from_file) on the same tokenizer.json.
const REFERENCE_IDS: Array<[string, number[]]> = [
  ['A photo of a cat, a dog!', [520, 320, 515, 518, 320, 517, 267, 320, 519, 326, 256, 521]],
  ["It's  the CAT's   photo", [520, 72, 339, 6, 338, 83, 71, 324, 517, 6, 338, 515, 521]],
  ['héllo 42 wörld', [520, 71, 127, 102, 75, 75, 334, 275, 273, 86, 127, 114, 81, 75, 323, 521]],
];

let root: string;
let dirs = 0;
/** A fresh MODELS_DIR holding the tiny model, with `edit` applied to its manifest. */
function modelsDir(edit?: (manifest: TinyClipManifest) => unknown): string {
  const dir = path.join(root, `models-${dirs++}`);
  const manifest = tinyClipManifest();
  writeTinyClip(dir, edit ? (edit(manifest) ?? manifest) : manifest);
  return dir;
}

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'clip-test-'));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('a CLIP model brought in MODELS_DIR (tiny towers written at test time)', () => {
  let clip: ClipModel;
  let dir: string;

  beforeAll(async () => {
    dir = modelsDir();
    clip = await loadClip(dir, 1);
  });
  afterAll(() => clip.close());

  it('loads clip.json and reports its versioned id and dimension', () => {
    expect(clipInstalled(dir)).toBe(true);
    expect(clip.modelId).toBe('tiny-clip@1');
    expect(clip.dim).toBe(TINY_DIM);
  });

  it('encodes images into unit vectors of the model dimension, as the vision tower computes them', async () => {
    const [red, green] = await clip.encodeImages([await flat(200, 30, 90), await flat(10, 220, 40)]);
    expect(red).toHaveLength(TINY_DIM);
    expect(norm(red)).toBeCloseTo(1, 5);
    expect(norm(green)).toBeCloseTo(1, 5);
    expect(Array.from(red)).toEqual(expectedImageEmbedding([200, 30, 90]).map((value) => expect.closeTo(value, 5)));
    expect(Array.from(green)).toEqual(expectedImageEmbedding([10, 220, 40]).map((value) => expect.closeTo(value, 5)));
  });

  it('gives identical vectors for identical images, from a path or bytes, alone or in a batch', async () => {
    const [fromPath, other, again] = await clip.encodeImages([photo('chelsea'), photo('coffee'), fs.readFileSync(photo('chelsea'))]);
    const [alone] = await clip.encodeImages([photo('chelsea')]);
    expect(again).toEqual(fromPath);
    expect(alone).toEqual(fromPath);
    expect(other).not.toEqual(fromPath);
    expect(norm(fromPath)).toBeCloseTo(1, 5);
  });

  it('encodes texts into unit vectors of the same space, as the text tower computes them', async () => {
    const [cat, dog] = await clip.encodeTexts(['a photo of a cat', 'a dog']);
    expect(cat).toHaveLength(TINY_DIM);
    expect(norm(cat)).toBeCloseTo(1, 5);
    expect(norm(dog)).toBeCloseTo(1, 5);
    expect(Array.from(cat)).toEqual(expectedTextEmbedding([START_ID, 320, 515, 518, 320, 517, END_ID]).map((value) => expect.closeTo(value, 5)));
    const [image] = await clip.encodeImages([photo('chelsea')]);
    expect(image).toHaveLength(cat.length);
  });

  it('gives identical vectors for identical texts, whatever the batch pads them to', async () => {
    const [alone] = await clip.encodeTexts(['a cat']);
    const [padded, , again] = await clip.encodeTexts(['a cat', 'a much longer text about a photo of a dog and a cat', 'a cat']);
    expect(padded).toEqual(alone);
    expect(again).toEqual(alone);
    const padTo = await loadClip(
      modelsDir((manifest) => {
        manifest.text.padToMaxTokens = true;
      }),
    );
    try {
      const [fixedLength] = await padTo.encodeTexts(['a cat']);
      expect(Array.from(fixedLength)).toEqual(Array.from(alone).map((value) => expect.closeTo(value, 6)));
    } finally {
      await padTo.close();
    }
  });

  it('answers empty lists with empty lists', async () => {
    expect(await clip.encodeImages([])).toEqual([]);
    expect(await clip.encodeTexts([])).toEqual([]);
  });
});

describe('the CLIP tokenizer (@huggingface/tokenizers on a byte-level BPE tokenizer.json)', () => {
  const tokenizer = createClipTokenizer(tinyTokenizerJson(), TINY_MAX_TOKENS);

  it.each(REFERENCE_IDS)('tokenizes %j as the reference tokenizer does', (text, ids) => {
    expect(tokenizer.encode(text)).toEqual(ids);
  });

  it('applies the merges in order and marks word ends: "photo" is one token, "dog" two', () => {
    const vocabulary = (tinyTokenizerJson() as { model: { vocab: Record<string, number> } }).model.vocab;
    expect(tokenizer.encode('photo dog')).toEqual([START_ID, vocabulary['photo</w>'], vocabulary.do, vocabulary['g</w>'], END_ID]);
    expect(tokenizer.endTokenId).toBe(END_ID);
  });

  it('cuts a long text to maxTokens and keeps the end token', () => {
    const ids = tokenizer.encode('a '.repeat(40));
    expect(ids).toHaveLength(TINY_MAX_TOKENS);
    expect(ids[0]).toBe(START_ID);
    expect(ids[TINY_MAX_TOKENS - 1]).toBe(END_ID);
  });

  it('rejects a tokenizer.json it cannot read', () => {
    expect(() => createClipTokenizer({ model: {} }, TINY_MAX_TOKENS)).toThrow(ClipManifestError);
  });
});

describe('a missing or invalid CLIP manifest', () => {
  it('is not installed without clip.json, and loading says so', async () => {
    const empty = path.join(root, 'empty');
    fs.mkdirSync(empty, { recursive: true });
    expect(clipInstalled(empty)).toBe(false);
    await expect(loadClip(empty)).rejects.toThrow(ModelNotInstalledError);
    await expect(loadClip(empty)).rejects.toThrow(/no clip\.json in .*empty.*Bring your own CLIP/);
  });

  it('names a file that is not JSON', async () => {
    await expect(loadClip(modelsDir(() => '{"id": "tiny-clip@1",'))).rejects.toThrow(/clip\.json is not valid JSON/);
  });

  it('names every field that is missing or wrong', async () => {
    const dir = modelsDir((manifest) => {
      delete manifest.vision.size;
      manifest.vision.mean = [1, 2];
      manifest.text.maxTokens = 0;
      return { ...manifest, dim: 'eight' };
    });
    const error = await loadClip(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClipManifestError);
    const message = (error as Error).message;
    expect(message).toContain('is not a valid CLIP manifest');
    for (const field of ['dim:', 'vision.size:', 'vision.mean', 'text.maxTokens:']) expect(message).toContain(field);
  });

  it('wants a version suffix on the id', async () => {
    await expect(loadClip(modelsDir((manifest) => ({ ...manifest, id: 'tiny-clip' })))).rejects.toThrow(/id: expected a name with a version suffix/);
  });

  it('names a file the manifest points to that is not there', async () => {
    const dir = modelsDir((manifest) => {
      manifest.text.tokenizer = 'missing-tokenizer.json';
    });
    await expect(loadClip(dir)).rejects.toThrow(/text\.tokenizer names "missing-tokenizer\.json", which is not in/);
  });

  it('names tensors the graphs do not have or that the manifest leaves unfed', async () => {
    await expect(
      loadClip(
        modelsDir((manifest) => {
          manifest.vision.output = 'pooler_output';
        }),
      ),
    ).rejects.toThrow('the vision tower has no output "pooler_output" (its outputs: image_embeds)');
    await expect(
      loadClip(
        modelsDir((manifest) => {
          delete manifest.text.attentionMask;
        }),
      ),
    ).rejects.toThrow('the text tower also wants "attention_mask", which the manifest does not name');
  });

  it('says so when the towers do not give the manifest dimension', async () => {
    const clip = await loadClip(modelsDir((manifest) => ({ ...manifest, dim: 16 })));
    try {
      await expect(clip.encodeTexts(['a cat'])).rejects.toThrow('the text output "text_embeds" is float32 [1, 8], expected float32 [1, 16]');
    } finally {
      await clip.close();
    }
  });

  it('names a tower onnxruntime cannot load', async () => {
    const dir = modelsDir();
    fs.writeFileSync(path.join(dir, 'tiny_vision.onnx'), 'not a model');
    await expect(loadClip(dir)).rejects.toThrow(/tiny_vision\.onnx cannot be loaded by onnxruntime/);
  });
});
