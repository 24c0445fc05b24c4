import type { Knex } from 'knex';

const TYPES_BEFORE = ['duplicates', 'outliers', 'blur', 'dark', 'bright', 'broken', 'mislabel', 'leakage'];
const quoted = (types: string[]) => types.map((type) => `'${type}'`).join(', ');

/**
 * Duplicate tiers: `media.pixel_print` keeps a thumbnail's greyscale print (made when a pair first needs it), and a
 * pair the embedding alone finds is a `similar` issue, apart from `duplicates` (exact and near-identical).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE media ADD COLUMN pixel_print bytea;
    ALTER TABLE media_issues DROP CONSTRAINT media_issues_type_valid;
    ALTER TABLE media_issues ADD CONSTRAINT media_issues_type_valid CHECK (issue_type IN (${quoted([...TYPES_BEFORE, 'similar'])}));
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex('media_issues').where({ issue_type: 'similar' }).delete();
  await knex.raw(`
    ALTER TABLE media DROP COLUMN pixel_print;
    ALTER TABLE media_issues DROP CONSTRAINT media_issues_type_valid;
    ALTER TABLE media_issues ADD CONSTRAINT media_issues_type_valid CHECK (issue_type IN (${quoted(TYPES_BEFORE)}));
  `);
}
