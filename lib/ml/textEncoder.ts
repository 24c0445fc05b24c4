import fs from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { l2Normalise, ModelNotInstalledError } from './imageEncoder';
import { createWordPiece } from './wordPiece';

export const TEXT_MODEL_ID = 'all-minilm-l6-v2@1';
const MAX_TOKENS = 128;

export interface TextEncoder {
  modelId: string;
  dim: number;
  /** L2-normalised sentence embeddings (mean pooling over the tokens), one per text. */
  encode(texts: string[]): Promise<Float32Array[]>;
  close(): Promise<void>;
}

/** all-MiniLM-L6-v2 in ONNX with its WordPiece tokenizer, both installed by `npm run setup:models`. */
export async function loadTextEncoder(modelsDir: string, threads = 1): Promise<TextEncoder> {
  const modelPath = path.join(modelsDir, 'all-minilm-l6-v2.onnx');
  const tokenizerPath = path.join(modelsDir, 'all-minilm-l6-v2-tokenizer.json');
  if (!fs.existsSync(modelPath) || !fs.existsSync(tokenizerPath)) {
    throw new ModelNotInstalledError(`The text encoder is not installed in ${modelsDir}: run "npm run setup:models"`);
  }
  const tokenizer = createWordPiece(JSON.parse(fs.readFileSync(tokenizerPath, 'utf8')), MAX_TOKENS);
  const session = await ort.InferenceSession.create(modelPath, { intraOpNumThreads: threads, interOpNumThreads: 1 });
  const dim = 384;

  return {
    modelId: TEXT_MODEL_ID,
    dim,
    async encode(texts) {
      if (texts.length === 0) return [];
      const encoded = texts.map((text) => tokenizer.encode(text));
      const length = Math.max(...encoded.map((ids) => ids.length));
      const ids = new BigInt64Array(texts.length * length);
      const mask = new BigInt64Array(texts.length * length);
      encoded.forEach((tokens, row) => tokens.forEach((token, i) => {
        ids[row * length + i] = BigInt(token);
        mask[row * length + i] = 1n;
      }));
      const shape = [texts.length, length];
      const output = await session.run({
        input_ids: new ort.Tensor('int64', ids, shape),
        attention_mask: new ort.Tensor('int64', mask, shape),
        token_type_ids: new ort.Tensor('int64', new BigInt64Array(texts.length * length), shape),
      });
      const hidden = output.last_hidden_state.data as Float32Array;
      return encoded.map((tokens, row) => {
        const pooled = new Float32Array(dim);
        for (let i = 0; i < tokens.length; i++) {
          const offset = (row * length + i) * dim;
          for (let d = 0; d < dim; d++) pooled[d] += hidden[offset + d];
        }
        return l2Normalise(pooled.map((value) => value / tokens.length));
      });
    },
    close: () => session.release(),
  };
}
