import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { consoleApiTypes, SCHEMA_FILE } from '../../src/console/build/api-types.ts';

test("the console's API types are generated from the current OpenAPI document (npm run console:api-types)", async () => {
  assert.equal(
    readFileSync(SCHEMA_FILE, 'utf8'),
    await consoleApiTypes(),
    'src/console/api/schema.d.ts is out of date: run npm run console:api-types',
  );
});
