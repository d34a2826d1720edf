import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Route } from '../../src/http/route.ts';
import { Router } from '../../src/http/router.ts';

const r = (method: string, path: string): Route =>
  ({ method, path, auth: { kind: 'public' }, handler: async () => undefined }) as unknown as Route;

const routes = [
  r('POST', '/v1/chat/completions'),
  r('GET', '/api/v1/sites/:siteId/ingest/receipts/:batchId'),
  r('GET', '/api/v1/sites/:siteId/ingest/:resource/:x'),
  r('GET', '/api/v1/sites/mine'),
  r('GET', '/api/v1/sites/:siteId'),
];
const router = new Router(routes);

test('a path of literal segments finds its route, and a parameter route still takes values', () => {
  const relay = router.match('POST', '/v1/chat/completions');
  assert.equal(relay.kind === 'found' && relay.route, routes[0]);
  const site = router.match('GET', '/api/v1/sites/s%201');
  assert.deepEqual(site.kind === 'found' && [site.route, site.params], [routes[4], { siteId: 's 1' }]);
});

test('literal segments beat parameters, whichever route is registered first', () => {
  for (const each of [router, new Router([...routes].reverse())]) {
    const mine = each.match('GET', '/api/v1/sites/mine');
    assert.equal(mine.kind === 'found' && mine.route, routes[3]);
    const receipt = each.match('GET', '/api/v1/sites/a/ingest/receipts/b');
    assert.deepEqual(receipt.kind === 'found' && [receipt.route, receipt.params], [
      routes[1],
      { siteId: 'a', batchId: 'b' },
    ]);
  }
});

test('a literal path asked with another method is a wrong method, an unknown path is none', () => {
  assert.deepEqual(router.match('GET', '/v1/chat/completions'), { kind: 'wrong_method', allowed: ['POST'] });
  assert.deepEqual(router.match('POST', '/v1/chat/completion'), { kind: 'none' });
  // A trailing slash is the same path to the segment matcher.
  const slash = router.match('POST', '/v1/chat/completions/');
  assert.equal(slash.kind === 'found' && slash.route, routes[0]);
});
