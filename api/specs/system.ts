import { z } from 'zod';
import { defineRoute } from '../routeSpec';
import { healthSchema } from '../presenters/health';

export const systemRoutes = {
  health: defineRoute({
    method: 'get',
    path: '/health',
    tag: 'system',
    summary: 'Health of Postgres, Temporal and the workers',
    auth: 'none',
    request: {},
    responses: { 200: { description: 'Healthy', schema: healthSchema } },
    errors: [[503, 'Unavailable: the body is the health report with status "unavailable" and a detail']],
  }),
  openapi: defineRoute({
    method: 'get',
    path: '/openapi.json',
    tag: 'system',
    summary: 'This document',
    auth: 'none',
    request: {},
    responses: { 200: { description: 'OpenAPI 3.1', schema: z.object({}).loose() } },
  }),
};
