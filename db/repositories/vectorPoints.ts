import type { Db } from '../connection';
import type { PointRows } from '../../lib/vectors/embeddedVectorStore';

/** Durable storage of the embedded vector store: collections and points in Postgres, each write a new seq. */
export function createVectorPointRows(db: Db): PointRows {
  return {
    async createCollection(name, dim) {
      await db('vector_collections').insert({ name, dim }).onConflict('name').ignore();
      return db('vector_collections').where({ name }).first('dim');
    },

    async dropCollection(name) {
      await db('vector_collections').where({ name }).delete();
    },

    async upsert(name, points) {
      if (points.length === 0) return;
      await db('vector_points')
        .insert(points.map((point) => ({ collection: name, id: point.id, vector: point.vector })))
        .onConflict(['collection', 'id'])
        .merge({ vector: db.raw('excluded.vector'), seq: db.raw("nextval('vector_points_seq')") });
    },

    async markDeleted(name, ids) {
      if (ids.length === 0) return;
      await db('vector_points').where({ collection: name }).whereIn('id', ids).update({ vector: null, seq: db.raw("nextval('vector_points_seq')") });
    },

    async vectors(name, ids) {
      if (ids.length === 0) return [];
      return db('vector_points').where({ collection: name }).whereIn('id', ids).whereNotNull('vector').select('id', 'vector');
    },

    async count(name) {
      const [{ count }] = await db('vector_points').where({ collection: name }).whereNotNull('vector').count({ count: '*' });
      return Number(count);
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
