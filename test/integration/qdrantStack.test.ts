import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { headVersion } from '../../db/repositories/versions';
import { createQdrantVectorStore } from '../../lib/vectors/qdrantVectorStore';
import { imageCollection } from '../../lib/vectors/vectorStore';
import { createEmbeddedVectorStore } from '../../lib/vectors/embeddedVectorStore';
import { agreementWithExact, knnGraphOfHits } from '../../lib/vectors/neighbourAgreement';
import { createVectorPointRows } from '../../db/repositories/vectorPoints';
import { GRAPH_K } from '../../lib/clustering/knnGraph';
import { createReadyDataset, waitForTask } from '../support/datasets';
import { photo } from '../support/media';
import { indexWhateverTheSize, qdrantCall, testQdrantUrl, type QdrantCollectionInfo } from '../support/qdrant';
import { startTestStack } from '../support/testStack';

type Stack = Awaited<ReturnType<typeof startTestStack>>;
interface Preview { media_id: string; file_name: string; relevance_score: number }

// The run's real Qdrant server (globalSetup); without one this suite is not registered (globalSetup says so).
const qdrantUrl = testQdrantUrl();
if (qdrantUrl) {
  describe('the service on Qdrant: creation, visual search and add_media through the API, worker and Temporal', () => {
    let stack: Stack;
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'qdrant-stack-'));
    const qdrant = createQdrantVectorStore({ url: qdrantUrl });

    beforeAll(async () => {
      stack = await startTestStack({ QDRANT_URL: qdrantUrl });
    });
    afterAll(async () => {
      await stack?.close();
      fs.rmSync(scratch, { recursive: true, force: true });
    });

    /** Explore's previews ranked by visual similarity to the anchor, nearest first. */
    const ranked = async (datasetId: string, anchorId: string, anchorType: 'MEDIA' | 'UPLOAD'): Promise<Preview[]> => {
      const body = (await stack.request.get(`/api/v1/explore/${datasetId}`).query({ entity_type: 'IMAGES', threshold: 0, anchor_media_id: anchorId, anchor_type: anchorType }).expect(200)).body;
      return body.clusters.flatMap((cluster: { previews: Preview[] }) => cluster.previews);
    };
    const uploadAnchor = async (datasetId: string, file: string): Promise<string> =>
      (await stack.request.post(`/api/v1/dataset/${datasetId}/search-image-similarity`).query({ entity_type: 'IMAGES' }).attach('file', file).expect(200)).body.anchor_media_id;

    it('indexes real photos into Qdrant, finds them by media and by uploaded image, and finds media added later', async () => {
      const datasetId = await createReadyDataset(stack, 'on qdrant', ['chelsea', 'coffee', 'astronaut', 'rocket', 'camera'].map(photo));
      const { db } = stack.deps;
      const version = await headVersion(db, datasetId);
      const mediaId = async (fileName: string) => (await db('media').where({ version_id: (await headVersion(db, datasetId)).id, file_name: fileName }).first('id')).id as string;

      // The vectors live in Qdrant, not in the embedded store's tables.
      expect(await qdrant.count(imageCollection(version.vector_space_id))).toBe(5);
      expect(Number((await db('vector_points').count({ n: '*' }).first())!.n)).toBe(0);

      // By media id: the anchor itself first, at distance ~0, the rest by increasing distance.
      const byMedia = await ranked(datasetId, await mediaId('coffee.jpg'), 'MEDIA');
      expect(byMedia.map((p) => p.file_name).sort()).toEqual(['astronaut.jpg', 'camera.jpg', 'chelsea.jpg', 'coffee.jpg', 'rocket.jpg']);
      expect(byMedia[0]).toMatchObject({ file_name: 'coffee.jpg', relevance_score: expect.any(Number) });
      expect(byMedia[0].relevance_score).toBeLessThan(0.01);
      const scores = byMedia.map((p) => p.relevance_score);
      expect(scores).toEqual([...scores].sort((a, b) => a - b));

      // By an uploaded image: a smaller recompressed copy of the rocket finds the rocket.
      const rocketCopy = path.join(scratch, 'rocket_small.jpg');
      await sharp(photo('rocket')).resize(240).jpeg({ quality: 70 }).toFile(rocketCopy);
      const byUpload = await ranked(datasetId, await uploadAnchor(datasetId, rocketCopy), 'UPLOAD');
      expect(byUpload.map((p) => p.file_name)[0]).toBe('rocket.jpg');
      expect(byUpload[0].relevance_score).toBeLessThan(byUpload[1].relevance_score);

      // add_media: a new photo and a near-copy of one already there.
      const chelseaCopy = path.join(scratch, 'chelsea_again.jpg');
      await sharp(photo('chelsea')).resize(320).jpeg({ quality: 70 }).toFile(chelseaCopy);
      await stack.request.post(`/api/v1/dataset/${datasetId}/add_media`).attach('files', photo('grace_hopper')).attach('files', chelseaCopy).expect(202);
      const task = await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED']);
      expect(task).toMatchObject({ task_type: 'MEDIA_ADDITION', status: 'COMPLETED', error_message: null });
      expect((await stack.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body).toMatchObject({ status_new: 'PARTIAL INDEX', n_images: 7 });
      expect(await qdrant.count(imageCollection(version.vector_space_id))).toBe(7);

      // The new media are findable, by media id and by uploaded image.
      const [nearestToNew] = await ranked(datasetId, await mediaId('grace_hopper.jpg'), 'MEDIA');
      expect(nearestToNew.file_name).toBe('grace_hopper.jpg');
      expect(nearestToNew.relevance_score).toBeLessThan(0.01);
      const byNewUpload = await ranked(datasetId, await uploadAnchor(datasetId, photo('grace_hopper')), 'UPLOAD');
      expect(byNewUpload[0].file_name).toBe('grace_hopper.jpg');
      expect(byNewUpload).toHaveLength(7);
      // The batch was placed against Qdrant's neighbours: the copy is a duplicate of the photo already there.
      const copy = await db('media_issues').where({ version_id: (await headVersion(db, datasetId)).id, media_id: await mediaId('chelsea_again.jpg'), issue_type: 'duplicates' }).first('details');
      expect(copy.details.duplicate_of).toBe(await mediaId('chelsea.jpg'));
      const [first, second] = await ranked(datasetId, await mediaId('chelsea.jpg'), 'MEDIA');
      expect([first.file_name, second.file_name]).toEqual(['chelsea.jpg', 'chelsea_again.jpg']);
    });

    it('a quantized collection, indexed, gives the embedded store\'s duplicate pairs and clusters on real photos and their copies', async () => {
      const files: string[] = [];
      for (const name of ['chelsea', 'coffee', 'astronaut', 'rocket', 'camera', 'grace_hopper', 'motorcycle_left', 'hubble_deep_field']) {
        files.push(photo(name));
        const half = path.join(scratch, `${name}_half.jpg`);
        await sharp(photo(name)).resize(256).jpeg({ quality: 80 }).toFile(half);
        const recompressed = path.join(scratch, `${name}_q35.jpg`);
        await sharp(photo(name)).jpeg({ quality: 35 }).toFile(recompressed);
        files.push(half, recompressed);
      }
      const datasetId = await createReadyDataset(stack, 'quantized qdrant', files);
      const { db } = stack.deps;
      const version = await headVersion(db, datasetId);
      const collection = imageCollection(version.vector_space_id);
      const info = await qdrantCall<QdrantCollectionInfo>(qdrantUrl, 'GET', `/collections/${collection}`);
      expect(info.config.quantization_config).toEqual({ scalar: { type: 'int8', quantile: 0.99, always_ram: true } });
      // Small collections are scanned with float32 vectors: make this one search its HNSW index of quantized vectors.
      await indexWhateverTheSize(qdrantUrl, collection);

      const ids: string[] = await db('media').where({ version_id: version.id }).orderBy('file_name').pluck('id');
      const stored = await qdrant.get(collection, ids);
      const vectors = ids.map((id) => stored.get(id)!);
      const embedded = createEmbeddedVectorStore({ rows: createVectorPointRows(db), exactSearchMaxPoints: 0 });
      const copy = `quantization_check_${randomUUID().replace(/-/g, '')}`;
      await embedded.ensureCollection(copy, vectors[0].length);
      await embedded.upsert(copy, ids.map((id, i) => ({ id, vector: vectors[i] })));

      const quantized = knnGraphOfHits(await qdrant.searchMany(collection, vectors, GRAPH_K + 1), ids, GRAPH_K);
      const reference = knnGraphOfHits(await embedded.searchMany(copy, vectors, GRAPH_K + 1), ids, GRAPH_K);
      const agreement = agreementWithExact(quantized, reference);
      // Each photo with its two copies: three pairs each, at least.
      expect(agreement.exact_duplicate_pairs).toBeGreaterThanOrEqual(24);
      expect(agreement).toMatchObject({ duplicate_pair_recall: 1, extra_duplicate_pairs: 0 });
      expect(agreement.clusters.map((level) => [level.adjusted_rand, level.identical_clusters])).toEqual(agreement.clusters.map(() => [1, 1]));
      await embedded.dropCollection(copy);
      await embedded.close();
    }, 180_000);
  });
}
