import type { Knex } from 'knex';

/**
 * OIDC logins: a user is linked to the identity provider's subject (unique once set), and a
 * session started by the provider keeps its ID token, the hint of the provider's logout.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.text('idp_subject').unique();
  });
  await knex.schema.alterTable('sessions', (t) => {
    t.text('id_token');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sessions', (t) => {
    t.dropColumn('id_token');
  });
  await knex.schema.alterTable('users', (t) => {
    t.dropColumn('idp_subject');
  });
}
