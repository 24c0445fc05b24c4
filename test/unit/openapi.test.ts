import fs from 'node:fs';
import path from 'node:path';
import { createApiRouters, type AppDeps } from '../../api/app';
import { buildOpenApiDocument } from '../../api/openapiDocument';
import { loadConfig } from '../../lib/config';

describe('docs/openapi.json', () => {
  const committed = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'openapi.json'), 'utf8');
  const document = JSON.parse(committed);

  it('is the document the route specs generate (run `npm run openapi` after changing a route)', () => {
    expect(document).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
  });

  it('describes exactly the routes the API serves', () => {
    // Building the routers only captures their dependencies, so the configuration is all they need here.
    const { publicRoutes, userRoutes } = createApiRouters({ config: loadConfig({}) } as unknown as AppDeps);
    const served = [publicRoutes, userRoutes]
      .flatMap((router) => router.stack)
      .flatMap((layer) =>
        layer.methods.filter((method) => method !== 'HEAD').map((method) => `${method.toLowerCase()} ${String(layer.path).replace(/:(\w+)/g, '{$1}')}`),
      )
      .sort();
    const documented = Object.entries(document.paths as Record<string, Record<string, unknown>>)
      .flatMap(([route, operations]) => Object.keys(operations).map((method) => `${method} ${route}`))
      .sort();
    expect(documented).toEqual(served);
  });

  it('documents an error response with {detail} for every operation that can fail', () => {
    for (const operations of Object.values(document.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>)) {
      for (const operation of Object.values(operations)) {
        for (const [code, response] of Object.entries(operation.responses)) {
          if (Number(code) >= 400) expect(response).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
        }
      }
    }
  });

  it('names nothing outside the repository', () => {
    expect(committed).not.toMatch(/\.\.\//);
  });
});
