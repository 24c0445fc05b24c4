import { z } from 'zod';
import { defineRoute } from '../routeSpec';
import { acceptedTask } from './acceptedTask';
import { booleanParam, datasetIdParams, filePart, LABEL_FIELD_ALONE, labelFieldNeedsLabelsFrom, labelsFromFields } from './common';

const formCount = (name: string) =>
  z.coerce
    .number({ message: `${name} must be a non-negative integer` })
    .int(`${name} must be a non-negative integer`)
    .min(0, `${name} must be a non-negative integer`);

/** The text fields of an add_media form (its files come as parts named `files` or `archive`). */
export const addMediaFields = z.strictObject(
  {
    s3_uri: z.string().trim().min(1, 's3_uri must not be empty').optional().meta({
      description: "s3://bucket/folder/ or s3://bucket/manifest.csv|.parquet|.txt, within what S3_SOURCE_POLICY allows the dataset's organization (else 403, as for a manifest entry outside it)",
    }),
    auto_reindex: booleanParam('auto_reindex').default(false),
    assume_role: z.string().trim().min(1, 'assume_role must not be empty').optional().meta({ description: "Role ARN assumed through STS (with its configured ExternalId) to read s3_uri; one of the organization's roles in S3_SOURCE_POLICY, else 403" }),
    batch_n_videos: formCount('batch_n_videos').optional(),
    batch_n_images: formCount('batch_n_images').optional(),
    batch_n_objects: formCount('batch_n_objects').optional(),
    use_spot: booleanParam('use_spot').optional(),
    ...labelsFromFields(
      "the label check running again as part of the batch (files, archive members and S3 keys alike; one at the source's top has none)",
      'the label field the dataset declared, else label; another field than the declared one is a 400',
    ),
  },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? `Unknown form field: ${issue.keys.join(', ')}` : undefined) },
).refine(labelFieldNeedsLabelsFrom, LABEL_FIELD_ALONE);

const running = 'an add_media or reindex is running';

export const mediaAdditionRoutes = {
  addMedia: defineRoute({
    method: 'post',
    path: '/dataset/:dataset_id/add_media',
    tag: 'ingestion',
    summary: 'Add a batch of media (files, one archive, or an S3 folder or manifest) in a MEDIA_ADDITION task',
    description: 'Exactly one source. The dataset goes READ ONLY, then PARTIAL INDEX (or READY with auto_reindex). Follow the task in /api/v1/tasks.',
    auth: 'user',
    datasetState: 'service',
    request: { params: datasetIdParams },
    handlerReads: {
      form: z.object({
        files: z.array(filePart).optional(),
        archive: filePart.optional().meta({ description: '.zip, .tar or .tar.gz' }),
        labels: filePart.optional().meta({ description: 'With labels_from=csv or coco: the .csv (file,label[,split]) or COCO .json naming the uploaded files' }),
        ...addMediaFields.shape,
      }),
    },
    responses: { 202: acceptedTask },
    errors: [
      [
        400,
        'Invalid parameters, source or embedding configuration, or a bad labels_from / label_field / labels file (another field than the declared label field, no uploaded file sent from a folder, a labels file naming files not sent, a label breaking the label rule, more than 1,000 classes)',
      ],
      [403, "Feature disabled, no write access, or an s3_uri, manifest entry or assume_role the dataset's organization may not use"],
      [404, 'Dataset not found'],
      [409, `Status not READY or PARTIAL INDEX, or ${running}`],
      413,
      [422, 'Malformed multipart body, wrong file field, or a file path sent twice in the request or longer than 1,024 bytes'],
      [500, 'Upload or pipeline trigger failed'],
    ],
  }),
  reindex: defineRoute({
    method: 'post',
    path: '/dataset/:dataset_id/reindex',
    tag: 'ingestion',
    summary: 'Re-cluster a PARTIAL INDEX dataset in a REINDEX task',
    auth: 'user',
    datasetState: 'service',
    request: { params: datasetIdParams },
    responses: { 202: acceptedTask },
    errors: [[403, 'No write access'], [404, 'Dataset not found'], [409, `Status not PARTIAL INDEX, or ${running}`]],
  }),
};
