import type { Knex } from 'knex';

/**
 * API keys may expire (API_KEY_TTL_DAYS, or the caller's expires_in_days). Keys minted before this
 * migration keep no expiry: the migration cannot know the operator's setting, and expiring keys in
 * use by surprise would break their clients; they can be listed and revoked like any other.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_credentials', (t) => {
    t.timestamp('expires_at', { useTz: true });
  });
  // Listing a user's keys newest first, and counting the live ones before minting another.
  await knex.raw('CREATE INDEX api_credentials_user_created ON api_credentials (user_id, created_at DESC)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS api_credentials_user_created');
  await knex.schema.alterTable('api_credentials', (t) => {
    t.dropColumn('expires_at');
  });
}
