import type { Db } from '../connection';
import type { PointRows } from '../../lib/vectors/embeddedVectorStore';

/** Durable storage of the embedded vector store: collections and points in Postgres, each write a new seq. */
export function createVectorPointRows(db: Db): PointRows {
  return {
    async collection(name) {
      return db('vector_collections').where({ name }).first('generation', 'dim');
    },

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
      return db('vector_points').where({ collection: name }).where('seq', '>', seq).orderBy('seq').limit(limit).select('id', 'seq', 'vector');
    },
  };
}
