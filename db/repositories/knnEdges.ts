import type { Db } from '../connection';

/** Forgets a version's stored kNN graph (a new analysis of it starts). */
export async function clearKnnEdges(db: Db, versionId: string): Promise<void> {
  await db('knn_edges').where({ version_id: versionId }).delete();
}

/** Stores one chunk's hits; a repeated chunk replaces its row. */
export async function writeKnnChunk(db: Db, versionId: string, chunk: number, hits: Buffer): Promise<void> {
  await db('knn_edges').insert({ version_id: versionId, chunk, hits }).onConflict(['version_id', 'chunk']).merge(['hits']);
}

/** How many chunks of the version's graph are stored. */
export async function storedKnnChunks(db: Db, versionId: string): Promise<number> {
  return Number((await db('knn_edges').where({ version_id: versionId }).count({ n: '*' }))[0].n);
}

/** Bytes the version's stored graph takes (its blobs). */
export async function knnEdgeBytes(db: Db, versionId: string): Promise<number> {
  return Number((await db('knn_edges').where({ version_id: versionId }).first(db.raw('coalesce(sum(octet_length(hits)), 0)::bigint AS n'))).n);
}

/** The hits of chunks 0 … chunks-1, one chunk at a time in order; a missing chunk is an error. */
export async function forEachKnnChunk(db: Db, versionId: string, chunks: number, onChunk: (hits: Buffer) => void): Promise<void> {
  for (let chunk = 0; chunk < chunks; chunk++) {
    const row: { hits: Buffer } | undefined = await db('knn_edges').where({ version_id: versionId, chunk }).first('hits');
    if (!row) throw new Error(`chunk ${chunk} of the kNN graph is not stored`);
    onChunk(row.hits);
  }
}
