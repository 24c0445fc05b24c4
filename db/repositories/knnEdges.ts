import type { Db } from '../connection';

/** Tables of neighbour hits stored a chunk at a time: the analysis's kNN graph, and a label-quality check's neighbours among the labelled images. */
export type EdgeTable = 'knn_edges' | 'label_edges';

/** Forgets a version's stored kNN graph (a new analysis of it starts). */
export async function clearKnnEdges(db: Db, versionId: string, table: EdgeTable = 'knn_edges'): Promise<void> {
  if (table === 'knn_edges') await db('knn_graphs').where({ version_id: versionId }).delete();
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
export async function forEachKnnChunk(
  db: Db,
  versionId: string,
  chunks: number,
  onChunk: (hits: Buffer, chunk: number) => void,
  table: EdgeTable = 'knn_edges',
): Promise<void> {
  for (let chunk = 0; chunk < chunks; chunk++) {
    const row: { hits: Buffer } | undefined = await db(table).where({ version_id: versionId, chunk }).first('hits');
    if (!row) throw new Error(`chunk ${chunk} of the ${table === 'knn_edges' ? 'kNN graph' : 'label check'} is not stored`);
    onChunk(row.hits, chunk);
  }
}

/** What a version's stored graph is over (the knn_graphs row): ordinal o stands for ids[o]. */
export interface KnnGraphManifest {
  vectorSpaceId: string;
  ids: string[];
  /** 1 where the item's list was searched (it was embedded then). */
  searched: Uint8Array;
  /** The graph is chunk rows 0 … chunks-1; a later row's list of an item replaces an earlier one. */
  chunks: number;
  /** The part of the graph the stored analysis was made from (undefined: unknown, a graph stored before it was recorded). */
  analysed?: AnalysedGraph;
}

/** Chunk rows 0 … chunks-1 over ordinals 0 … items-1. */
export interface AnalysedGraph {
  chunks: number;
  items: number;
}

const uuidBytes = (ids: readonly string[]): Buffer => Buffer.from(ids.map((id) => id.replace(/-/g, '')).join(''), 'hex');

function uuidsOf(bytes: Buffer): string[] {
  const hex = bytes.toString('hex');
  return Array.from({ length: bytes.length / 16 }, (_, i) => {
    const h = hex.slice(i * 32, i * 32 + 32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  });
}

/** Records (or replaces) what the version's stored graph is over, once the graph is complete. */
export async function writeKnnGraphManifest(db: Db, versionId: string, manifest: KnnGraphManifest): Promise<void> {
  const row = {
    version_id: versionId,
    vector_space_id: manifest.vectorSpaceId,
    item_ids: uuidBytes(manifest.ids),
    searched: Buffer.from(manifest.searched),
    chunks: manifest.chunks,
  };
  await db('knn_graphs').insert(row).onConflict('version_id').merge();
}

export async function findKnnGraphManifest(db: Db, versionId: string): Promise<KnnGraphManifest | undefined> {
  const row = await db('knn_graphs').where({ version_id: versionId }).first();
  if (!row) return undefined;
  const analysed = row.analysed_chunks === null ? undefined : { chunks: row.analysed_chunks, items: row.analysed_items };
  return { vectorSpaceId: row.vector_space_id, ids: uuidsOf(row.item_ids), searched: new Uint8Array(row.searched), chunks: row.chunks, analysed };
}

/** How many chunk rows make the version's stored graph (its manifest's `chunks` without its ids), if it has one. */
export async function knnGraphChunks(db: Db, versionId: string): Promise<number | undefined> {
  const row: { chunks: number } | undefined = await db('knn_graphs').where({ version_id: versionId }).first('chunks');
  return row?.chunks;
}

/** Records which part of the version's stored graph its analysis now comes from (in the transaction that writes the analysis). */
export async function setAnalysedGraph(db: Db, versionId: string, analysed: AnalysedGraph): Promise<void> {
  await db('knn_graphs').where({ version_id: versionId }).update({ analysed_chunks: analysed.chunks, analysed_items: analysed.items });
}

/** Stores a chunk of new items: their lists, and the existing items each may enter (same encoding); a repeat overwrites. */
export async function writeKnnCandidateChunk(db: Db, versionId: string, chunk: number, hits: Buffer, candidates: Buffer): Promise<void> {
  await db('knn_edges').insert({ version_id: versionId, chunk, hits, candidates }).onConflict(['version_id', 'chunk']).merge(['hits', 'candidates']);
}

/** The candidates of chunks from … to-1, one chunk at a time in order; a missing chunk is an error. */
export async function forEachKnnCandidates(db: Db, versionId: string, from: number, to: number, onChunk: (candidates: Buffer) => void): Promise<void> {
  for (let chunk = from; chunk < to; chunk++) {
    const row: { candidates: Buffer | null } | undefined = await db('knn_edges').where({ version_id: versionId, chunk }).first('candidates');
    if (!row?.candidates) throw new Error(`the candidates of chunk ${chunk} of the kNN graph are not stored`);
    onChunk(row.candidates);
  }
}

/** Stores the changed lists of an extended graph as its last chunk and records what the graph is now over, at once. */
export async function storeExtendedKnnGraph(db: Db, versionId: string, changedLists: Buffer, manifest: KnnGraphManifest): Promise<void> {
  await db.transaction(async (trx) => {
    await writeKnnChunk(trx, versionId, manifest.chunks - 1, changedLists);
    await writeKnnGraphManifest(trx, versionId, manifest);
  });
}
