/**
 * Writes schema.d.ts, the console's API types, from the OpenAPI document the front door serves
 * (`npm run console:api-types`). test/console/api-types.test.ts fails when it is out of date.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS from 'openapi-typescript';
import { openApiDocument } from '../../http/openapi.ts';
import { allRoutes } from '../../http/routes.ts';

export const SCHEMA_FILE = fileURLToPath(new URL('../api/schema.d.ts', import.meta.url));

export async function consoleApiTypes(): Promise<string> {
  const routes = allRoutes(() => false);
  const doc = openApiDocument(routes, 'http://127.0.0.1:8080');
  return await openapiTS(doc as never, { exportType: false });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(SCHEMA_FILE, await consoleApiTypes());
  console.log(`wrote ${SCHEMA_FILE}`);
}
