import type { Db } from '../db/connection';
import type { User } from '../db/models';
import type { DatasetRow } from '../db/repositories/datasets';
import { createTag, deleteTag, listTags, tagExists, tagMedia, untagMedia, type TagRow } from '../db/repositories/tags';
import { countSelectedMediaByKind, type MediaSelection } from '../db/repositories/selection';
import { conflict, notFound } from '../lib/errors';
import { requireCurrentMapLayout } from './map';

export function listDatasetTags(db: Db, dataset: DatasetRow): Promise<TagRow[]> {
  return listTags(db, dataset.id);
}

/** A new tag; its name is unique within the dataset. */
export async function addTag(db: Db, dataset: DatasetRow, user: User, name: string): Promise<TagRow> {
  const tag = await createTag(db, dataset.id, name, user.id);
  if (!tag) throw conflict(`A tag named "${name}" already exists in this dataset`);
  return tag;
}

/** Deletes a tag and takes it off every media item. */
export async function removeTag(db: Db, dataset: DatasetRow, tagId: string): Promise<void> {
  if (!(await deleteTag(db, dataset.id, tagId))) throw notFound('Tag not found');
}

async function requireTag(db: Db, dataset: DatasetRow, tagId: string, selection: MediaSelection): Promise<void> {
  if (!(await tagExists(db, dataset.id, tagId))) throw notFound('Tag not found');
  await requireCurrentMapLayout(db, dataset, selection.filters ?? []);
}

/** What a selection holds, counted before a bulk action: images, video frames and videos (a filter matches images and frames). */
export async function countSelection(db: Db, dataset: DatasetRow, selection: MediaSelection): Promise<{ total: number; images: number; video_frames: number; videos: number }> {
  await requireCurrentMapLayout(db, dataset, selection.filters ?? []);
  const byKind = await countSelectedMediaByKind(db, dataset.head_version_id, selection);
  const [images, videoFrames, videos] = [byKind.IMAGE ?? 0, byKind.VIDEO_FRAME ?? 0, byKind.VIDEO ?? 0];
  return { total: images + videoFrames + videos, images, video_frames: videoFrames, videos };
}

/** Tags the selected media; returns how many were newly tagged. */
export async function tagSelection(db: Db, dataset: DatasetRow, tagId: string, selection: MediaSelection): Promise<number> {
  await requireTag(db, dataset, tagId, selection);
  return tagMedia(db, dataset.id, tagId, selection);
}

/** Takes the tag off the selected media; returns how many were untagged. */
export async function untagSelection(db: Db, dataset: DatasetRow, tagId: string, selection: MediaSelection): Promise<number> {
  await requireTag(db, dataset, tagId, selection);
  return untagMedia(db, dataset.id, tagId, selection);
}
