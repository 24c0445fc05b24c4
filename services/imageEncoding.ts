import { imagePixels, type EncodedImage, type ImageEncoder } from '../lib/ml/imageEncoder';
import { blobKey, modelInputKey, type ObjectStore } from '../lib/storage/objectStore';

/**
 * Embeds and classifies image blobs (images and video frames) from the model inputs the ingest
 * prepared in its one decode; a blob without one (ingested before the ingest prepared them, or
 * for another model's input spec) is decoded from the original instead.
 */
export async function encodeImageBlobs(store: ObjectStore, encoder: ImageEncoder, sha256s: string[]): Promise<EncodedImage[]> {
  const inputBytes = encoder.input.size * encoder.input.size * 3;
  const prepared = async (sha256: string): Promise<Buffer | undefined> => {
    const pixels = await store.get(modelInputKey(sha256, encoder.input)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    return pixels?.length === inputBytes ? pixels : undefined;
  };
  const pixels = await Promise.all(
    sha256s.map(async (sha256) => (await prepared(sha256)) ?? imagePixels(await store.get(blobKey(sha256)), encoder.input)),
  );
  return encoder.encodePixels(pixels);
}
