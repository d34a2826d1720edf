import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { call } from '../helpers/http.ts';

let app: TestApp;
let doc: any;
before(async () => {
  app = await startTestApp();
  const r = await call(app.url, 'GET', '/api/v1/openapi.json');
  assert.equal(r.status, 200);
  doc = r.body;
});
after(() => app.close());

test('the document is valid OpenAPI 3.1', async () => {
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.info.version, '1.0.0');
  const result = await new Validator().validate(doc);
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
});

test('every route of the router is in it, with a summary, its scopes and its error bodies', () => {
  for (const r of app.door.server.router.routes) {
    const path = r.path.replace(/:(\w+)/g, '{$1}');
    const op = doc.paths[path]?.[r.method.toLowerCase()];
    assert.ok(op, `${r.method} ${path} is missing`);
    assert.ok(r.docs?.summary, `${r.method} ${path} has no summary`);
    if (r.auth.kind === 'business') {
      assert.deepEqual(op['x-required-scopes'], [...r.auth.scopes], `${r.method} ${path} scopes`);
      for (const status of ['401', '403']) assert.ok(op.responses[status], `${r.method} ${path} documents ${status}`);
      assert.equal(op.responses['401'].content['application/problem+json'].schema.$ref, '#/components/schemas/Problem');
    }
    if (r.auth.kind !== 'public' && ['POST', 'PUT', 'PATCH'].includes(r.method) && !r.path.endsWith('/logout')) {
      assert.ok(op.requestBody, `${r.method} ${path} documents its request body`);
    }
  }
});

test('request bodies come from the validating schemas', () => {
  const submit = doc.paths['/api/v1/me/sites'].post.requestBody.content['application/json'].schema;
  assert.deepEqual(submit.required.sort(), ['category', 'description', 'name', 'websiteUrl']);
  assert.equal(submit.additionalProperties, false);
  assert.equal(submit.properties.name.maxLength, 160);
  const cred = doc.paths['/api/v1/sites/{siteId}/credentials'].post.requestBody.content['application/json'].schema;
  assert.equal(cred.properties.expiresInDays.maximum, 365);
  assert.equal(cred.properties.scopes.maxItems, 25);
});

test('answers come from the declared response schemas, and error lists from the declared input', () => {
  const ok = (path: string, method: string) =>
    doc.paths[path][method].responses['200'].content['application/json'].schema;
  const sites = ok('/api/v1/me/sites', 'get');
  assert.deepEqual(sites.properties.data.items.properties.reviewStatus.enum, [
    'pending_review',
    'approved',
    'rejected',
  ]);
  const receipt = ok('/api/v1/sites/{siteId}/ingest/receipts/{batchId}', 'get');
  assert.ok(receipt.required.includes('digest'));
  const overview = ok('/api/v1/sites/{siteId}/analytics/overview', 'get');
  assert.deepEqual(Object.keys(overview.properties).sort(), ['coverage', 'currencies', 'data', 'freshness']);
  // A UUID path parameter can be refused, so its route lists 400; a bare string cannot.
  const disable = doc.paths['/api/v1/admin/accounts/{accountId}'].patch;
  assert.equal(disable.parameters[0].schema.format, 'uuid');
  assert.ok(disable.responses['400']);
  assert.equal(doc.paths['/api/v1/me/relay-keys/{keyId}'].delete.responses['400'], undefined);
});
