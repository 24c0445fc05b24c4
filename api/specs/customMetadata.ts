import { z } from 'zod';
import { defineRoute } from '../routeSpec';
import { datasetIdParams, filePart, startedTask } from './common';

export const customMetadataRoutes = {
  import: defineRoute({
    method: 'post',
    path: '/dataset/:dataset_id/custom_metadata',
    tag: 'metadata',
    summary: 'Import captions, labels and fields (.json, .csv, .parquet) in a CUSTOM_METADATA task',
    auth: 'user',
    datasetState: 'service',
    request: { params: datasetIdParams },
    handlerReads: { form: z.object({ file: filePart }) },
    responses: { 202: { description: 'Started', schema: startedTask } },
    errors: [[400, 'file missing or not .json, .csv or .parquet'], 403, 404, [409, 'The dataset cannot take metadata in its status'], 413],
  }),
};
