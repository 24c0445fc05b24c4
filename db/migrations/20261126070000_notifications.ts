import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('notifications', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    // Insertion order, the cursor of open streams (timestamps lose microseconds in JavaScript).
    t.bigIncrements('seq', { primaryKey: false });
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('entity_type').notNullable();
    t.uuid('entity_id');
    t.text('title').notNullable().defaultTo('');
    t.text('message');
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.uuid('dataset_id').references('datasets.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('read_at', { useTz: true });
    t.index(['user_id', 'created_at']);
    t.index(['user_id', 'seq']);
  });
  await knex.raw('CREATE INDEX notifications_unread ON notifications (user_id, dataset_id) WHERE read_at IS NULL');
  // Open notification streams wake up on this instead of polling only.
  await knex.raw(`
    CREATE FUNCTION notify_notification() RETURNS trigger AS $$
    BEGIN
      PERFORM pg_notify('notifications', json_build_object('user_id', NEW.user_id)::text);
      RETURN NEW;
    END $$ LANGUAGE plpgsql`);
  await knex.raw(`CREATE TRIGGER notifications_notify AFTER INSERT ON notifications
    FOR EACH ROW EXECUTE FUNCTION notify_notification()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('notifications');
  await knex.raw('DROP FUNCTION IF EXISTS notify_notification()');
}
