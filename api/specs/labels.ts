import { z } from 'zod';
import { defineRoute } from '../routeSpec';
import { datasetIdParams, startedTask } from './common';
import { selectionBody } from './selection';

const propagationBody = z.object({
  label: z.string().trim().min(1, 'label is required').max(100, 'label is at most 100 characters'),
  selection: selectionBody,
  min_similarity: z
    .number()
    .min(0.5, 'min_similarity must be between 0.5 and 1')
    .max(1, 'min_similarity must be between 0.5 and 1')
    .default(0.9)
    .meta({ description: 'A neighbour gets the label when its cosine similarity to a selected media item is at least this' }),
  max_neighbours: z
    .number()
    .int('max_neighbours must be an integer')
    .min(0, 'max_neighbours must be between 0 and 1000')
    .max(1000, 'max_neighbours must be between 0 and 1000')
    .default(50)
    .meta({ description: 'At most this many nearest neighbours of each selected item; 0 labels the selection only' }),
});

export const labelRoutes = {
  propagate: defineRoute({
    method: 'post',
    path: '/dataset/:dataset_id/labels/propagate',
    tag: 'labels',
    summary: 'Label the selected media and propagate the label to their near neighbours, in a LABEL_PROPAGATION task',
    auth: 'user',
    request: { params: datasetIdParams, body: propagationBody },
    responses: { 202: { description: 'Started', schema: startedTask } },
    errors: [403, 404, [409, 'The dataset cannot take labels in its status'], [422, 'Invalid input, or a selection naming no media of the dataset']],
  }),
};
