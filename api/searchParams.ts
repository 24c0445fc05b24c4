import type { Middleware } from 'koa';
import { z } from 'zod';
import { HttpError } from './errors';

/** Explore and the anchor upload answer a missing entity_type with 400 (the spec), a bad one with 422. */
export const requireEntityType: Middleware = async (ctx, next) => {
  if (!ctx.query.entity_type) throw new HttpError(400, 'entity_type is required (IMAGES or OBJECTS)');
  await next();
};

export const entityType = z.enum(['IMAGES', 'OBJECTS'], { message: 'entity_type must be IMAGES or OBJECTS' });

export const clusteringThreshold = z.coerce
  .number({ message: 'threshold must be an integer 0-4' })
  .int('threshold must be an integer 0-4')
  .min(0, 'threshold must be an integer 0-4')
  .max(4, 'threshold must be an integer 0-4');
