import type { Knex } from 'knex';
import type { Db } from '../connection';
import type { PointRows } from '../../lib/vectors/embeddedVectorStore';

/**
 * Runs a write to `collection` holding its advisory lock until commit, so its writes commit in seq
 * order: a reader (or a published index) that has seen seq N can never later find a committed row
 * below N, which two concurrent writers (two workers sharing a dataset) would otherwise make.
 */
export function writeInSeqOrder<T>(db: Db, collection: string, write: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return db.transaction(async (trx) => {
    await trx.raw("SELECT pg_advisory_xact_lock(hashtext('vector_points'), hashtext(?))", [collection]);
    return write(trx);
  });
}

/** The advisory lock space of index publication (one lock per collection). */
const PUBLICATION_LOCK = 'vector_index_publication';

/** Durable storage of the embedded vector store: collections and points in Postgres, each write a new seq. */
export function createVectorPointRows(db: Db): PointRows {
  const inSeqOrder = <T>(collection: string, write: (trx: Knex.Transaction) => Promise<T>) => writeInSeqOrder(db, collection, write);
  return {
    async createCollection(name, dim) {
      await db('vector_collections').insert({ name, dim }).onConflict('name').ignore();
      return db('vector_collections').where({ name }).first('dim');
    },

    async dropCollection(name) {
      await db('vector_collections').where({ name }).delete();
    },

    async listCollections() {
      return db('vector_collections').orderBy('name').pluck('name');
    },

    async upsert(name, points) {
      if (points.length === 0) return;
      await inSeqOrder(name, (trx) =>
        trx('vector_points')
          .insert(points.map((point) => ({ collection: name, id: point.id, vector: point.vector })))
          .onConflict(['collection', 'id'])
          .merge({ vector: trx.raw('excluded.vector'), seq: trx.raw("nextval('vector_points_seq')") }),
      );
    },

    async markDeleted(name, ids) {
      if (ids.length === 0) return;
      await inSeqOrder(name, (trx) =>
        trx('vector_points').where({ collection: name }).whereRaw('id = ANY(?::uuid[])', [ids]).update({ vector: null, seq: trx.raw("nextval('vector_points_seq')") }),
      );
    },

    async vectors(name, ids) {
      if (ids.length === 0) return [];
      // One array parameter, so any number of ids fits (a list of them stops at 65,535 bind parameters).
      return db('vector_points').where({ collection: name }).whereRaw('id = ANY(?::uuid[])', [ids]).whereNotNull('vector').select('id', 'vector');
    },

    async count(name) {
      const [{ count }] = await db('vector_points').where({ collection: name }).whereNotNull('vector').count({ count: '*' });
      return Number(count);
    },

    async whilePublishing(name, publish) {
      // A session lock on one pooled connection rather than a transaction's: the connection is not left idle in a
      // transaction while the index is built (seconds, at scale). It goes with the connection if the process dies.
      const connection = await db.client.acquireConnection();
      try {
        const lock = [PUBLICATION_LOCK, name];
        const { rows } = await connection.query('SELECT pg_try_advisory_lock(hashtext($1), hashtext($2)) AS locked', lock);
        if (!rows[0].locked) return false;
        try {
          await publish();
          return true;
        } finally {
          await connection.query('SELECT pg_advisory_unlock(hashtext($1), hashtext($2))', lock);
        }
      } finally {
        await db.client.releaseConnection(connection);
      }
    },

    async changesAfter(name, seq, limit) {
      const rows: Array<{ generation: string; dim: number; id: string | null; seq: string | null; vector: Buffer | null }> = await db('vector_collections as c')
        .joinRaw('LEFT JOIN LATERAL (SELECT id, seq, vector FROM vector_points p WHERE p.collection = c.name AND p.seq > ? ORDER BY p.seq LIMIT ?) p ON true', [
          seq,
          limit,
        ])
        .where('c.name', name)
        .orderBy('p.seq')
        .select('c.generation', 'c.dim', 'p.id', 'p.seq', 'p.vector');
      if (rows.length === 0) return undefined;
      const changes = rows.flatMap((row) => (row.id === null ? [] : [{ id: row.id, seq: row.seq!, vector: row.vector }]));
      return { generation: rows[0].generation, dim: rows[0].dim, changes };
    },
  };
}
