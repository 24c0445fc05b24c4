import fs from 'node:fs';
import path from 'node:path';
import { buildOpenApiDocument } from '../api/openapiDocument';
import { projectRoot } from '../lib/projectRoot';

/** Writes docs/openapi.json from the route schemas; test/unit/openapi.test.ts fails while the committed file is stale. */
const target = path.join(projectRoot(), 'docs', 'openapi.json');
fs.writeFileSync(target, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
console.log(`wrote ${path.relative(process.cwd(), target)}`);
