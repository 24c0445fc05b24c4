import { z } from 'zod';
import type { ErrorStatus, RouteSpec } from './routeSpec';
import { API_ROUTES } from './specs';
import { errorSchema } from './specs/common';

/** Where the routers are mounted (api/app.ts). */
export const API_PREFIX = '/api/v1';

type JsonSchema = Record<string, unknown>;

const ERROR_DESCRIPTIONS: Record<ErrorStatus, string> = {
  400: 'Bad input',
  401: 'Not authenticated',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  413: 'Too large',
  422: 'Invalid parameters',
  429: 'Too many requests',
  500: 'Internal error',
  503: 'Unavailable',
};

/** What every request that changes state may answer (api/middleware/sameOrigin.ts). */
const CROSS_SITE_REFUSAL = "a browser sent it from another site's page (Sec-Fetch-Site, or Origin other than PUBLIC_URL's)";

/** Drops what only repeats the format (uuid and date-time patterns) or the number type's own bounds. */
function tidy(ctx: { jsonSchema: JsonSchema }): void {
  const schema = ctx.jsonSchema;
  if (schema.format && schema.pattern) delete schema.pattern;
  if (schema.maximum === Number.MAX_SAFE_INTEGER) delete schema.maximum;
  if (schema.minimum === Number.MIN_SAFE_INTEGER) delete schema.minimum;
  if (schema.additionalProperties === false) delete schema.additionalProperties;
}

/** The operation's own security; routes for users take the document's default (bearer, or the cookie on premises). */
function security(auth: RouteSpec['auth']) {
  switch (auth) {
    case 'none':
      return { security: [] };
    case 'session':
      return { security: [{ sessionCookie: [] }] };
    case 'sessionOrToken':
      return { security: [{ bearerAuth: [] }, { sessionCookie: [] }] };
    case 'user':
      return {};
  }
}

/** Builds the OpenAPI 3.1 document of `routes`: parameters, bodies and responses from their zod schemas. */
export function buildOpenApiDocument(routes: readonly RouteSpec[] = API_ROUTES) {
  const components: Record<string, JsonSchema> = {};

  /** The JSON Schema of a request part (as sent: `io: input`) or a response (as answered); named schemas become components. */
  const jsonSchema = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
    const { $schema: _, $defs, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any', override: tidy }) as JsonSchema & {
      $defs?: Record<string, JsonSchema>;
    };
    const toComponents = (value: JsonSchema): JsonSchema =>
      JSON.parse(JSON.stringify(value).replaceAll('"#/$defs/', '"#/components/schemas/'));
    for (const [id, definition] of Object.entries($defs ?? {})) components[id] = toComponents(definition);
    return toComponents(rest);
  };

  const parameters = (place: 'path' | 'query', schema: z.ZodObject | undefined) => {
    if (!schema) return [];
    const object = jsonSchema(schema, 'input') as { properties: Record<string, JsonSchema>; required?: string[] };
    return Object.entries(object.properties).map(([name, { description, ...property }]) => ({
      name,
      in: place,
      required: place === 'path' || (object.required ?? []).includes(name),
      schema: property,
      ...(description ? { description } : {}),
    }));
  };

  const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: jsonSchema(errorSchema, 'output') } } });

  const operation = (route: RouteSpec) => {
    const errors = new Map<number, string>();
    if (route.auth !== 'none') errors.set(401, ERROR_DESCRIPTIONS[401]);
    if (route.request.params || route.request.query || route.request.body) {
      errors.set(route.invalidInputStatus ?? 422, route.invalidInputStatus === 400 ? 'Invalid input' : ERROR_DESCRIPTIONS[422]);
    }
    for (const entry of route.errors ?? []) {
      const [status, description] = Array.isArray(entry) ? entry : [entry, ERROR_DESCRIPTIONS[entry]];
      errors.set(status, description);
    }
    if (route.method !== 'get' || route.changesState) errors.set(403, [errors.get(403), CROSS_SITE_REFUSAL].filter(Boolean).join('; or '));
    const responses: Record<string, unknown> = {};
    for (const [status, response] of Object.entries(route.responses)) {
      responses[status] = {
        description: response.description,
        ...(response.headers
          ? { headers: Object.fromEntries(Object.entries(response.headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }])) }
          : {}),
        ...(response.schema
          ? { content: { [response.contentType ?? 'application/json']: { schema: jsonSchema(response.schema, 'output') } } }
          : {}),
      };
    }
    for (const status of [...errors.keys()].sort((a, b) => a - b)) responses[status] = errorResponse(errors.get(status)!);

    const requestSchema = route.request.body ?? route.handlerReads?.form;
    const contentType = route.request.body ? 'application/json' : 'multipart/form-data';
    const parameterList = [
      ...parameters('path', route.request.params),
      ...parameters('query', route.request.query ?? route.handlerReads?.query),
    ];
    return {
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: [route.tag],
      ...security(route.auth),
      ...(parameterList.length > 0 ? { parameters: parameterList } : {}),
      // A form whose every field may be left out (process_files' optional labels part) may be sent without a body.
      ...(requestSchema ? { requestBody: { required: Boolean(route.request.body) || !requestSchema.safeParse({}).success, content: { [contentType]: { schema: jsonSchema(requestSchema, 'input') } } } } : {}),
      responses,
    };
  };

  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = API_PREFIX + route.path.replace(/:(\w+)/g, '{$1}');
    (paths[path] ??= {})[route.method] = operation(route);
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Media dataset service',
      version: '0.1.0',
      description:
        'Generated from the route schemas in api/specs/ (npm run openapi). Behaviour the reference specification leaves open ' +
        '(login, tags, custom metadata, views, health, media links) is decided in docs/decisions.md.',
    },
    servers: [{ url: 'http://localhost:8080' }],
    security: [{ bearerAuth: [] }, { sessionCookie: [] }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT (HS256, kid = sub = api_key, iss = sdk)' },
        sessionCookie: { type: 'apiKey', in: 'cookie', name: 'SESSION' },
      },
      schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))),
    },
  };
}
