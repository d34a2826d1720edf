import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { z } from 'zod';
import type { AppContext } from '../../src/app-context.ts';
import { startFrontDoor, type FrontDoor } from '../../src/front-door.ts';
import { route, Uuid } from '../../src/http/route.ts';
import { allRoutes } from '../../src/http/routes.ts';
import { startServer, type RunningServer } from '../../src/http/server.ts';
import { call } from '../helpers/http.ts';
import { testServices, type TestServices } from '../helpers/services.ts';
import { capturingLogger } from '../helpers/log-capture.ts';

/**
 * The contract a route declares is the one it keeps: requests are validated against it before
 * the handler runs, and (in the test helpers' RESPONSE_CONTRACT_CHECK mode, which every suite
 * runs in) each JSON answer is checked against the declared response.
 */

const lines: any[] = [];
let services: TestServices;
let door: FrontDoor;
const servers: RunningServer[] = [];

const Count = z.object({ n: z.int() });
const probes = [
  route({
    method: 'GET',
    path: '/api/v1/probe/drifted',
    auth: { kind: 'public' },
    response: Count,
    docs: { summary: 'answers a string where its contract says integer' },
    // The cast stands for a handler whose code drifted from its declaration.
    handler: async () => ({ body: { n: 'seven' } as unknown as z.input<typeof Count> }),
  }),
  route({
    method: 'GET',
    path: '/api/v1/probe/kept',
    auth: { kind: 'public' },
    response: Count,
    docs: { summary: 'answers what it declares' },
    handler: async () => ({ body: { n: 7 } }),
  }),
  route({
    method: 'POST',
    path: '/api/v1/probe/:id',
    auth: { kind: 'public' },
    params: z.object({ id: Uuid }),
    query: z.strictObject({ limit: z.coerce.number().int().max(10) }),
    body: z.strictObject({ name: z.string() }),
    response: z.object({ id: z.string(), limit: z.int(), name: z.string() }),
    docs: { summary: 'echoes its validated input' },
    handler: async ({ params, query, body }) => ({ body: { id: params.id, limit: query.limit, name: body.name } }),
  }),
];

/** A second listener over the test app's context, serving only the probes. */
async function probeServer(app: AppContext): Promise<string> {
  const server = await startServer(app, probes, { host: '127.0.0.1', port: 0 });
  servers.push(server);
  return `http://127.0.0.1:${server.port}`;
}

before(async () => {
  services = await testServices();
  door = await startFrontDoor(services.config, capturingLogger(lines));
});
after(async () => {
  for (const s of servers) await s.close(1000);
  await door.close();
  await services.cleanup();
});

test('an answer that breaks its declared response is a loud 500 in test mode, with the error logged', async () => {
  assert.equal(door.app.config.RESPONSE_CONTRACT_CHECK, true, 'the test helpers turn the check on');
  const url = await probeServer(door.app);
  const r = await call(url, 'GET', '/api/v1/probe/drifted');
  assert.equal(r.status, 500);
  assert.equal(r.body.code, 'response_contract_violation');
  assert.deepEqual(
    r.body.errors.map((e: { path: string }) => e.path),
    ['/n'],
  );
  const logged = lines.find((l) => l.msg === 'answer violates the declared response');
  assert.ok(logged, 'an error line names the violation');
  assert.equal(logged.level, 50);
  assert.equal(logged.route, 'GET /api/v1/probe/drifted');
  assert.equal((await call(url, 'GET', '/api/v1/probe/kept')).status, 200, 'a kept contract passes');
});

test('outside test mode the answer goes out as the handler wrote it', async () => {
  const url = await probeServer({ ...door.app, config: { ...door.app.config, RESPONSE_CONTRACT_CHECK: false } });
  const r = await call(url, 'GET', '/api/v1/probe/drifted');
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, { n: 'seven' });
});

test('path, query and body are validated before the handler, every violation in one 400', async () => {
  const url = await probeServer(door.app);
  const bad = await call(url, 'POST', '/api/v1/probe/not-a-uuid?limit=99&extra=1', { body: { name: 3, more: true } });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.code, 'validation_failed');
  assert.deepEqual(bad.body.errors.map((e: { path: string }) => e.path).sort(), [
    '/more',
    '/name',
    'path.id',
    'query.extra',
    'query.limit',
  ]);
  const id = '0e2d6a8c-4a3b-4f57-9d51-2c3f1b1e9a10';
  const good = await call(url, 'POST', `/api/v1/probe/${id}?limit=3`, { body: { name: 'x' } });
  assert.equal(good.status, 200);
  assert.deepEqual(good.body, { id, limit: 3, name: 'x' }, 'the handler got the parsed, typed values');
});

test('every route that answers JSON declares its response; only raw writers do not', () => {
  const undeclared = allRoutes(() => false)
    .filter((r) => !r.response)
    .map((r) => `${r.method} ${r.path}`)
    .sort();
  // These write their answer themselves: Prometheus text, the cached document, an export's
  // file, the relay's pass-through of the provider's body or event stream.
  assert.deepEqual(undeclared, [
    'GET /api/v1/openapi.json',
    'GET /api/v1/sites/:siteId/exports/:exportId/download',
    'GET /metrics',
    'POST /v1/chat/completions',
    'POST /v1/embeddings',
    'POST /v1/responses',
  ]);
});

test('a route that declares a parameter its path lacks is refused when declared, not at its first request', () => {
  assert.throws(
    () =>
      route({
        method: 'GET',
        path: '/api/v1/probe/:id',
        auth: { kind: 'public' },
        params: z.object({ id: Uuid, siteId: Uuid }),
        docs: { summary: 'misdeclared' },
        handler: async () => undefined,
      }),
    /declares params it has no segment for: siteId/,
  );
});
