import { z } from 'zod';
import { defineRoute } from '../routeSpec';
import { datasetIdParams, datasetName, filePart, LABEL_FIELD_ALONE, labelFieldNeedsLabelsFrom, labelsFromFields, startedTask } from './common';

/** Checked by the handler: the spec's ingestion codes make a missing dataset_name a 400, not a 422. */
export const newDatasetQuery = z.object({ dataset_name: datasetName('dataset_name', 'dataset_name must be a single string') });
const transactionParams = datasetIdParams.extend({
  transaction_id: z.coerce.number({ message: 'transaction_id must be an integer' }).int('transaction_id must be an integer').positive(),
});
const transaction = { trans_id: z.number().int() };

/** Checked by the handler (400 as the spec's ingestion codes say): labels from the folders the files were sent from. */
export const processFilesQuery = z
  .object(labelsFromFields('checked at the end of indexing', 'label'))
  .refine(labelFieldNeedsLabelsFrom, LABEL_FIELD_ALONE);

export const ingestionRoutes = {
  newDataset: defineRoute({
    method: 'get',
    path: '/ingestion/new_dataset',
    tag: 'ingestion',
    summary: 'Step 1: a new dataset waiting for uploads',
    auth: 'user',
    changesState: true,
    request: {},
    handlerReads: { query: newDatasetQuery },
    responses: { 200: { description: 'Created', schema: z.object({ dataset_id: z.uuid() }) } },
    errors: [[400, 'dataset_name missing or too long'], [403, 'Creating datasets needs the editor or admin role']],
  }),
  openTransaction: defineRoute({
    method: 'get',
    path: '/ingestion/:dataset_id/data_files',
    tag: 'ingestion',
    summary: 'Step 2: open an upload transaction',
    auth: 'user',
    changesState: true,
    request: { params: datasetIdParams },
    responses: { 200: { description: 'Transaction', schema: z.object(transaction) } },
    errors: [[400, 'The dataset takes no more uploads'], 403, 404],
  }),
  uploadFiles: defineRoute({
    method: 'post',
    path: '/ingestion/:dataset_id/data_files/:transaction_id',
    tag: 'ingestion',
    summary: 'Step 3: upload files (repeated part `files`), as often as needed',
    auth: 'user',
    datasetState: 'service',
    request: { params: transactionParams },
    handlerReads: { form: z.object({ files: z.array(filePart) }) },
    responses: { 202: { description: 'Stored', schema: z.object({ ...transaction, files: z.array(z.string()) }) } },
    errors: [
      [400, 'No files, an unsupported file type, or the transaction is already processing'],
      403,
      404,
      413,
      [422, 'Malformed multipart body, wrong file field, or a file path sent twice in the request or longer than 1,024 bytes'],
    ],
  }),
  processFiles: defineRoute({
    method: 'post',
    path: '/ingestion/:dataset_id/process_files/:transaction_id',
    tag: 'ingestion',
    summary: 'Step 4: start the DATASET_CREATION task',
    auth: 'user',
    datasetState: 'service',
    request: { params: transactionParams },
    handlerReads: { query: processFilesQuery, form: z.object({ labels: filePart.optional().meta({ description: 'With labels_from=csv or coco: the .csv (file,label[,split]) or COCO .json naming the uploaded files' }) }) },
    responses: { 202: { description: 'Started', schema: startedTask } },
    errors: [
      [
        400,
        'No uploaded files, already processing, or a bad labels_from / label_field / labels file (no file sent from a folder, a labels file naming files not uploaded, a label breaking the label rule, more than 1,000 classes)',
      ],
      403,
      404,
      413,
    ],
  }),
};
