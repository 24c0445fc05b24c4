import type { Knex } from 'knex';

/**
 * Pixel prints are made by the ingest's decode now (a box-filtered Rec. 601 grey of the 512 px sample, lib/media/pixelPrint.ts):
 * those made before (libvips' grey of the thumbnail, a Lanczos downscale) are dropped, so two prints the pixel check
 * compares are always made the same way. A media item without one gets it from its thumbnail when a pair first needs it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('UPDATE media SET pixel_print = NULL WHERE pixel_print IS NOT NULL');
}

export async function down(): Promise<void> {
  // Dropped prints are made again on demand, by whichever method the code has.
}
