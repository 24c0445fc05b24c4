import type { Db } from '../connection';

/** Tables of neighbour hits stored a chunk at a time: the analysis's kNN graph, and a label-quality check's neighbours among the labelled images. */
export type EdgeTable = 'knn_edges' | 'label_edges';

/** Forgets a version's stored kNN graph (a new analysis of it starts). */
export async function clearKnnEdges(db: Db, versionId: string, table: EdgeTable = 'knn_edges'): Promise<void> {
  await db(table).where({ version_id: versionId }).delete();
}

/** Stores one chunk's hits; a repeated chunk replaces its row. */
export async function writeKnnChunk(db: Db, versionId: string, chunk: number, hits: Buffer, table: EdgeTable = 'knn_edges'): Promise<void> {
  await db(table).insert({ version_id: versionId, chunk, hits }).onConflict(['version_id', 'chunk']).merge(['hits']);
}

/** How many chunks of the version's graph are stored. */
export async function storedKnnChunks(db: Db, versionId: string, table: EdgeTable = 'knn_edges'): Promise<number> {
  return Number((await db(table).where({ version_id: versionId }).count({ n: '*' }))[0].n);
}

/** Bytes the version's stored graph takes (its blobs). */
export async function knnEdgeBytes(db: Db, versionId: string): Promise<number> {
  return Number((await db('knn_edges').where({ version_id: versionId }).first(db.raw('coalesce(sum(octet_length(hits)), 0)::bigint AS n'))).n);
}

/** The hits of chunks 0 … chunks-1, one chunk at a time in order; a missing chunk is an error. */
export async function forEachKnnChunk(db: Db, versionId: string, chunks: number, onChunk: (hits: Buffer) => void, table: EdgeTable = 'knn_edges'): Promise<void> {
  for (let chunk = 0; chunk < chunks; chunk++) {
    const row: { hits: Buffer } | undefined = await db(table).where({ version_id: versionId, chunk }).first('hits');
    if (!row) throw new Error(`chunk ${chunk} of the ${table === 'knn_edges' ? 'kNN graph' : 'label check'} is not stored`);
    onChunk(row.hits);
  }
}
