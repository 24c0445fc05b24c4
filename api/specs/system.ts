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
  appConfig: defineRoute({
    method: 'get',
    path: '/app_config',
    tag: 'system',
    summary: 'What the web app needs to know of this deployment',
    description: 'temporal_ui_url is TEMPORAL_UI_URL, or the embedded Temporal UI on the public host; null when neither is known.',
    auth: 'user',
    request: {},
    responses: {
      200: {
        description: 'Deployment settings',
        schema: z.object({ temporal_ui_url: z.string().nullable(), temporal_namespace: z.string() }),
      },
    },
  }),
};
