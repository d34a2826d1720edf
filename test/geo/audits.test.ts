import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, test } from 'node:test';
import { AUDIT_LIMITS } from '../../src/geo/audit/limits.ts';
import { createCredential } from '../helpers/fixtures.ts';
import {
  GOOD_LLMS,
  GOOD_PAGE,
  GOOD_ROBOTS,
  html,
  POOR_PAGE,
  redirect,
  send,
  SITEMAP,
  startPages,
  text,
  type PageServer,
} from './pages.ts';
import { geoFixture, type GeoFixture } from './setup.ts';

let fx: GeoFixture;
let good: PageServer;
let poor: PageServer;
let releaseSlow: () => void = () => {};
const slowGate = new Promise<void>((r) => (releaseSlow = r));

before(async () => {
  fx = await geoFixture({ env: { GEO_AUDIT_ALLOW_PRIVATE_HOSTS: '1' } });
  good = await startPages({
    '/good': html(GOOD_PAGE),
    '/old': redirect('/good'),
    '/robots.txt': (req, res) => text(GOOD_ROBOTS(`http://${req.headers.host}`))(req, res),
    '/llms.txt': text(GOOD_LLMS),
    '/sitemap-main.xml': send('application/xml', SITEMAP),
    '/data.json': send('application/json', '{}'),
    '/huge': send('text/html', `<html lang="en"><body><p>${'a'.repeat(3 * 1024 * 1024)}</p></body></html>`),
    '/hang': () => {},
    '/slow': (_req, res) => void slowGate.then(() => html(GOOD_PAGE)(_req, res)),
    '*': (req, res) => {
      // /hops/N redirects N times before the page.
      const n = /^\/hops\/(\d+)$/.exec(req.url ?? '');
      if (!n) return void res.writeHead(404).end();
      const left = Number(n[1]);
      (left === 0 ? html(GOOD_PAGE) : redirect(`/hops/${left - 1}`, 302))(req, res);
    },
  });
  poor = await startPages({
    '/': html(POOR_PAGE),
    '/robots.txt': text('User-agent: PerplexityBot\nDisallow: /\n\nUser-agent: ClaudeBot\nDisallow: /\n'),
    // A single-page app answers every path with its shell: that is no llms.txt.
    '/llms.txt': html('<!doctype html><html><body><div id="root"></div></body></html>'),
  });
});
after(async () => {
  releaseSlow();
  await fx.app.close();
  await Promise.all([good.close(), poor.close()]);
});

let keys = 0;
const newKey = () => `test-key-${++keys}-${Date.now()}`;
const audit = (url: string, key: string | null = newKey(), opts: { bearer?: string } = {}) =>
  fx.geo('POST', 'audits', {
    body: { url },
    headers: key === null ? {} : { 'idempotency-key': key },
    ...(opts.bearer ? { bearer: opts.bearer, session: undefined } : {}),
  });

const statuses = (checks: { id: string; status: string }[]) => Object.fromEntries(checks.map((c) => [c.id, c.status]));

test('a good page: every check but HTTPS passes, read through a redirect, the sitemap found via robots.txt', async () => {
  const r = await audit(`${good.origin}/old`);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.status, 'completed');
  assert.equal(r.body.url, `${good.origin}/old`);
  assert.equal(r.body.final_url, `${good.origin}/good`);
  assert.deepEqual(statuses(r.body.checks), {
    https: 'fail',
    robots_ai_crawlers: 'pass',
    llms_txt: 'pass',
    sitemap: 'pass',
    title: 'pass',
    meta_description: 'pass',
    canonical: 'pass',
    open_graph: 'pass',
    lang: 'pass',
    h1: 'pass',
    structured_data: 'pass',
    server_rendered_text: 'pass',
  });
  const detail = Object.fromEntries(r.body.checks.map((c: any) => [c.id, c.detail]));
  assert.equal(detail.robots_ai_crawlers, 'all 9 AI crawlers may fetch the page');
  assert.equal(detail.llms_txt, 'llms.txt with 2 links');
  assert.equal(detail.sitemap, `${good.origin}/sitemap-main.xml lists 3 URLs`);
  assert.equal(detail.title, 'title is 34 characters');
  assert.equal(detail.structured_data, 'schema.org types: Organization, WebSite, Thing');
  assert.equal(detail.canonical, `canonical ${good.origin}/good`);
  // Only the body's text counts: not scripts, styles, the svg's title or the head.
  assert.equal(
    detail.server_rendered_text,
    `${`Acme Writer ${'Acme Writer helps teams write better. '.repeat(15)}`.trim().length} characters of text in the served HTML`,
  );
  // Weights: https 2 of 19 missed.
  assert.equal(r.body.score, Math.round((100 * 17) / 19));
  assert.deepEqual(Object.keys(r.body).sort(), [
    'checks',
    'completed_at',
    'created_at',
    'error',
    'final_url',
    'id',
    'score',
    'status',
    'url',
  ]);
});

test('a poor page: each check fails or warns with its reason, and the score is the weighted sum', async () => {
  const r = await audit(`${poor.origin}/`);
  assert.equal(r.body.status, 'completed', r.text);
  assert.deepEqual(r.body.checks, [
    { id: 'https', status: 'fail', detail: `served over plain HTTP (${poor.origin}/)` },
    {
      id: 'robots_ai_crawlers',
      status: 'fail',
      detail: 'robots.txt blocks PerplexityBot and ClaudeBot from this page; assistants cannot cite it',
    },
    { id: 'llms_txt', status: 'warn', detail: `no llms.txt (${poor.origin}/llms.txt answered 200 with an HTML page)` },
    { id: 'sitemap', status: 'warn', detail: `no sitemap (${poor.origin}/sitemap.xml answered 404)` },
    { id: 'title', status: 'fail', detail: 'no title' },
    { id: 'meta_description', status: 'warn', detail: 'meta description is 6 characters; under 50 says too little' },
    { id: 'canonical', status: 'warn', detail: 'no <link rel="canonical">' },
    { id: 'open_graph', status: 'warn', detail: 'missing og:description, og:image' },
    { id: 'lang', status: 'fail', detail: '<html> has no lang attribute; assistants guess the language instead' },
    { id: 'h1', status: 'warn', detail: '2 <h1> elements; one names the page best' },
    { id: 'structured_data', status: 'fail', detail: '1 JSON-LD block is not valid JSON' },
    {
      id: 'server_rendered_text',
      status: 'fail',
      detail: '6 characters of text in the served HTML; the content seems to need JavaScript',
    },
  ]);
  // Six warnings at half their weight of one each: 3 points of 19.
  assert.equal(r.body.score, 16);
});

test('Idempotency-Key: missing or malformed → 400, same body → the same audit, other body → 422, running → 409', async () => {
  let r = await audit(`${good.origin}/good`, null);
  assert.equal(r.status, 400);
  assert.equal(r.body.code, 'idempotency_key_invalid');
  for (const key of ['1234567', 'k'.repeat(101), 'has space in it']) {
    r = await audit(`${good.origin}/good`, key);
    assert.equal(r.status, 400, key);
    assert.equal(r.body.code, 'idempotency_key_invalid');
  }
  r = await fx.geo('POST', 'audits', {
    body: { url: 'ftp://acme.example/', depth: 2 },
    headers: { 'idempotency-key': newKey() },
  });
  assert.equal(r.status, 400);
  assert.deepEqual(r.body.errors.map((e: any) => e.path).sort(), ['/depth', '/url']);

  const key = newKey();
  const first = await audit(`${good.origin}/good`, key);
  assert.equal(first.status, 200);
  const served = good.requests.length;
  const again = await audit(`${good.origin}/good`, key);
  assert.equal(again.status, 200);
  assert.deepEqual(again.body, first.body);
  assert.equal(good.requests.length, served, 'a replay fetches nothing');
  r = await audit(`${good.origin}/other`, key);
  assert.equal(r.status, 422);
  assert.equal(r.body.code, 'idempotency_key_reused');

  const slowKey = newKey();
  const asked = once(good.events, 'request');
  const pending = audit(`${good.origin}/slow`, slowKey);
  assert.equal((await asked)[0], '/slow');
  r = await audit(`${good.origin}/slow`, slowKey);
  assert.equal(r.status, 409);
  assert.equal(r.body.code, 'audit_in_progress');
  assert.equal(r.headers.get('retry-after'), '2');
  r = await audit(`${good.origin}/elsewhere`, slowKey);
  assert.equal(r.status, 422, 'another body is refused even while running');
  releaseSlow();
  const done = await pending;
  assert.equal(done.status, 200);
  assert.equal(done.body.status, 'completed');
  r = await audit(`${good.origin}/slow`, slowKey);
  assert.deepEqual(r.body, done.body);
});

test('bounds: 5 redirects at most, 2 MiB per document, non-HTML and error pages fail the audit', async () => {
  let r = await audit(`${good.origin}/hops/${AUDIT_LIMITS.maxRedirects}`);
  assert.equal(r.body.status, 'completed');
  r = await audit(`${good.origin}/hops/${AUDIT_LIMITS.maxRedirects + 1}`);
  assert.equal(r.body.status, 'failed');
  assert.equal(r.body.score, 0);
  assert.deepEqual(r.body.checks, [
    { id: 'page', status: 'fail', detail: `more than 5 redirects from ${good.origin}/hops/6` },
  ]);
  assert.equal(r.body.error, r.body.checks[0].detail);

  r = await audit(`${good.origin}/huge`);
  assert.equal(r.body.status, 'completed');
  const prefix = '<html lang="en"><body><p>'.length;
  assert.equal(
    r.body.checks.find((c: any) => c.id === 'server_rendered_text').detail,
    `${AUDIT_LIMITS.maxBytes - prefix} characters of text in the served HTML`,
  );

  r = await audit(`${good.origin}/data.json`);
  assert.deepEqual([r.body.status, r.body.error], ['failed', 'the page is application/json, not HTML']);
  r = await audit(`${good.origin}/missing`);
  assert.deepEqual([r.body.status, r.body.error], ['failed', 'the page answered 404']);
});

test('the whole audit is bounded to 10 s', { timeout: 30_000 }, async () => {
  const started = Date.now();
  const r = await audit(`${good.origin}/hang`);
  assert.equal(r.body.status, 'failed');
  assert.equal(r.body.error, 'not finished within 10 s');
  assert.ok(Date.now() - started < AUDIT_LIMITS.totalMs + 3000);
});

test('audits appear in reports and their checks in site-checks; a read credential with geo:run may audit', async () => {
  const runner = await createCredential(fx.app.url, fx.account, fx.siteId, 'read', ['geo:run', 'geo:read']);
  const r = await audit(`${poor.origin}/`, newKey(), { bearer: runner });
  assert.equal(r.status, 200, r.text);
  const reader = await createCredential(fx.app.url, fx.account, fx.siteId, 'read', ['geo:read']);
  const refused = await audit(`${poor.origin}/`, newKey(), { bearer: reader });
  assert.equal(refused.status, 403);

  const reports = (await fx.geo('GET', 'reports?limit=1')).body;
  assert.equal(reports.data[0].id, r.body.id);
  assert.deepEqual(reports.data[0].checks, r.body.checks);
  assert.equal(reports.pagination.next_offset, 1);
  const ofPoor = (await fx.geo('GET', `reports?limit=200&url=${encodeURIComponent(`${poor.origin}/`)}`)).body;
  assert.ok(ofPoor.data.length > 0);
  assert.deepEqual(new Set(ofPoor.data.map((a: any) => a.url)), new Set([`${poor.origin}/`]));
  assert.equal(ofPoor.pagination.total, ofPoor.data.length);
  const failed = (await fx.geo('GET', 'reports?limit=200&status=failed')).body.data;
  assert.ok(failed.some((a: any) => a.url === `${good.origin}/missing`));
  assert.deepEqual(new Set(failed.map((a: any) => a.status)), new Set(['failed']));
  const unknown = await fx.geo('GET', 'reports?status=done');
  assert.equal(unknown.status, 400);
  assert.equal(unknown.body.errors[0].path, 'query.status');

  const checks = (await fx.geo('GET', `site-checks?url=${encodeURIComponent(`${poor.origin}/`)}`)).body.data;
  assert.equal(checks.length, 1);
  assert.equal(checks[0].id, r.body.id);
  assert.equal(checks[0].score, 16);
  const all = (await fx.geo('GET', 'site-checks')).body.data;
  assert.ok(all.some((a: any) => a.url === `${good.origin}/good`));
});
