import { z } from 'zod';
import { EXPORT_FORMAT_MODULES, EXPORT_FORMATS } from '../../lib/export/formats';
import { defineRoute } from '../routeSpec';
import { booleanParam, datasetIdParams } from './common';

/** Each format with what its archive holds: "json (metadata.json), …, hf (…) or imagefolder (…)". */
const formatList = EXPORT_FORMAT_MODULES.map((format) => `${format.name} (${format.description})`);

const exportFormat = z
  .enum(EXPORT_FORMATS, { message: `export_format must be one of ${EXPORT_FORMATS.join(', ')}` })
  .meta({
    description:
      `${formatList.slice(0, -1).join(', ')} or ${formatList.at(-1)}. ` +
      'With a declared label field (PUT label_fields) coco, yolo and hf carry its values as the classes ' +
      "(hf: a ClassLabel label column) and its split field's values as splits",
  });

const fileName = z
  .string({ message: 'file_name is required' })
  .trim()
  .min(1, 'file_name is required')
  .max(200, 'file_name is at most 200 characters')
  .refine((name) => !/[/\\]/.test(name) && name !== '.' && name !== '..', 'file_name must be a file name, not a path')
  .meta({ description: 'Name of the ZIP; .zip is added when missing' });

const includeImages = booleanParam('include_images')
  .default(false)
  .meta({ description: 'Add images/ with the original bytes of every exported item under its image_filename (yolo, hf and imagefolder always carry the images)' });

const includeDiscarded = booleanParam('include_discarded_duplicates')
  .default(false)
  .meta({ description: 'Also export the copies a duplicate review discarded (left out by default)' });

const includeRepeatedFrames = booleanParam('include_repeated_frames')
  .default(false)
  .meta({ description: 'Also export the video frames that repeat an earlier frame of their video (a still shot, a black screen), left out by default' });

const snapshotId = z
  .uuid('snapshot_id must be a UUID')
  .optional()
  .meta({ description: "Export this snapshot's frozen data instead of the dataset as it is now (then the dataset's status does not matter)" });

export const exportContextQuery = z.object({
  file_name: fileName,
  export_format: exportFormat,
  include_images: includeImages,
  include_discarded_duplicates: includeDiscarded,
  include_repeated_frames: includeRepeatedFrames,
  snapshot_id: snapshotId,
});

export const exportEntitiesQuery = z.object({
  export_format: exportFormat,
  include_images: includeImages,
  include_discarded_duplicates: includeDiscarded,
  include_repeated_frames: includeRepeatedFrames,
  snapshot_id: snapshotId,
  file_name: fileName.optional().meta({ description: 'Name of the ZIP; defaults to <dataset name>_export.zip' }),
});

const uuidList = (name: string) => z.array(z.uuid(`${name} must be UUIDs`)).max(10_000, `${name} has at most 10,000 ids`);

const mediaItem = z.object({
  type: z.literal('media'),
  payload: z.object({ media_ids: uuidList('media_ids').min(1, 'media_ids must not be empty') }),
});

const clusterItem = z.object({
  type: z.literal('cluster'),
  payload: z.object({
    cluster_id: z.uuid('cluster_id must be a UUID'),
    cluster_filters: z
      .object({ entity_type: z.enum(['IMAGES', 'OBJECTS'], { message: 'entity_type must be IMAGES or OBJECTS' }) })
      .default({ entity_type: 'IMAGES' }),
    exclude_media_ids: uuidList('exclude_media_ids').default([]),
  }),
});

export const mediaSelectionBody = z
  .object({
    media_selection: z
      .array(z.discriminatedUnion('type', [mediaItem, clusterItem], { message: 'each item must have type media or cluster' }), {
        message: 'media_selection must be an array of items',
      })
      .min(1, 'media_selection must not be empty')
      .max(1000, 'media_selection has at most 1,000 items'),
  })
  .meta({
    id: 'MediaSelectionBody',
    description:
      'Items {type: media, payload: {media_ids}} (a video id takes its frames too) or {type: cluster, payload: {cluster_id, ' +
      'cluster_filters: {entity_type}, exclude_media_ids}}; ids come from Explore. An OBJECTS cluster selects the images holding one of its objects.',
  });

const startedExport = z.object({ id: z.uuid().meta({ description: 'The export task id (also listed in /api/v1/tasks)' }) });

const statusQuery = z.object({ export_task_id: z.uuid('export_task_id must be a UUID') });

const exportStatusSchema = z
  .object({
    status: z.enum(['PENDING', 'RUNNING', 'COMPLETED', 'FAILED']),
    download_uri: z
      .string()
      .nullable()
      .meta({ description: 'When COMPLETED: a signed link to the ZIP, valid MEDIA_URL_TTL_SECONDS (follow redirects); a new one on every call' }),
    progress_percentage: z.number().int().nullable(),
    error_message: z.string().nullable(),
    file_name: z.string().meta({ description: "The ZIP's name" }),
    export_format: z.string().meta({ description: 'The format asked for: a name GET /api/v1/export-formats lists' }),
    include_images: z.boolean().meta({ description: 'The archive carries the images: asked for, or a format that always does (yolo, hf, imagefolder)' }),
    selection: z
      .object({ n_media: z.number().int(), n_clusters: z.number().int() })
      .nullable()
      .meta({ description: 'What a selective export picked (media by id, whole clusters); null for the whole dataset' }),
  })
  .meta({ id: 'ExportStatus' });

const exportFormatSchema = z
  .object({
    name: z.string().meta({ description: 'The export_format value' }),
    title: z.string().meta({ description: 'Its name for people' }),
    description: z.string().meta({ description: 'What its archive holds' }),
    metadata_file: z.string().meta({ description: "The metadata file's name in the archive" }),
    always_includes_images: z.boolean().meta({ description: 'The archive holds the images whatever include_images says' }),
    needs_label_field: z.boolean().meta({ description: 'Exports the classes of the declared label field: refused (422) without one' }),
  })
  .meta({ id: 'ExportFormat' });

const downloadParams = z.object({ task_id: z.uuid('task_id must be a UUID'), file_name: z.string().min(1) });
const signedQuery = z.object({
  expires: z.coerce.number().int().meta({ description: 'Unix time (seconds) the link expires' }),
  signature: z.string().min(1),
});

const notReady: [409, string] = [409, 'Dataset not READY'];

export const exportRoutes = {
  exportContext: defineRoute({
    method: 'get',
    path: '/dataset/:dataset_id/export_context_async',
    tag: 'export',
    summary: 'Export the whole dataset as a ZIP in an EXPORT task',
    description:
      'The archive holds the metadata file (one record per image, video and video frame) and, with include_images, images/. ' +
      'Poll export_status with the returned id.',
    auth: 'user',
    changesState: true,
    request: { params: datasetIdParams, query: exportContextQuery },
    responses: { 200: { description: 'Started', schema: startedExport } },
    errors: [[403, 'Needs editor access'], 404, notReady],
  }),
  exportEntities: defineRoute({
    method: 'post',
    path: '/dataset/:dataset_id/export_entities_async',
    tag: 'export',
    summary: 'Export selected media and clusters as a ZIP in an EXPORT task',
    auth: 'user',
    datasetState: 'service',
    request: { params: datasetIdParams, query: exportEntitiesQuery, body: mediaSelectionBody },
    responses: { 200: { description: 'Started', schema: startedExport } },
    errors: [[403, 'Needs editor access'], 404, notReady],
  }),
  exportStatus: defineRoute({
    method: 'get',
    path: '/dataset/:dataset_id/export_status',
    tag: 'export',
    summary: 'Status of an export, with its download link once COMPLETED',
    auth: 'user',
    request: { params: datasetIdParams, query: statusQuery },
    responses: { 200: { description: 'Status', schema: exportStatusSchema } },
    errors: [[403, 'Needs editor access'], [404, 'Dataset or export not found']],
  }),
  formats: defineRoute({
    method: 'get',
    path: '/export-formats',
    tag: 'export',
    summary: 'The export formats, each with what its archive holds',
    description: 'The values export_format takes, in order; what the web app and the Python client offer.',
    auth: 'user',
    request: {},
    responses: { 200: { description: 'The formats', schema: z.array(exportFormatSchema) } },
  }),
  download: defineRoute({
    method: 'get',
    path: '/exports/:task_id/:file_name',
    tag: 'export',
    summary: 'The ZIP of a finished export behind the signed, expiring link export_status hands out',
    auth: 'none',
    request: { params: downloadParams, query: signedQuery },
    responses: { 200: { description: 'The ZIP', contentType: 'application/zip', schema: z.string().meta({ format: 'binary' }) } },
    errors: [[403, 'The link is invalid or has expired'], [404, 'Export not found or no longer stored']],
  }),
};
