import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eventually } from '../helpers/eventually.ts';
import { createAccount, type TestAccount } from '../helpers/fixtures.ts';
import { call } from '../helpers/http.ts';
import { relayFixture, type RelayFixture } from './setup.ts';

let fx: RelayFixture;
let admin: TestAccount;
let key: string;

before(async () => {
  fx = await relayFixture();
  const upstream = await fx.fake();
  await fx.channel({ baseUrl: upstream.base, models: ['priced-m', 'free-m'] });
  admin = await createAccount(fx.app.db, { admin: true });
  key = (await fx.key()).key;
});
after(() => fx.close());

const api = (method: string, path: string, body?: unknown) =>
  call(fx.app.url, method, path, { session: admin.session, body });

async function meteredRow(requestId: string): Promise<any> {
  return eventually(
    async () =>
      (await fx.app.db.oneOrNone<any>(
        'SELECT input_tokens, output_tokens, cached_tokens, reasoning_tokens, cost_nanos, currency, unpriced FROM relay_usage WHERE request_id = $1',
        [requestId],
      )) ?? undefined,
    10_000,
    'the usage row',
  );
}

async function chatCall(model: string) {
  const r = await call(fx.app.url, 'POST', '/v1/chat/completions', {
    bearer: key,
    body: { model, messages: [{ role: 'user', content: 'one two three four' }] },
  });
  assert.equal(r.status, 200, r.text);
  return { usage: r.body.usage, row: await meteredRow(r.headers.get('x-request-id')!) };
}

/** nanos of a price given per million tokens, times tokens, rounded up: what the relay must store. */
const expected = (u: any, input: number, cached: number, output: number) =>
  Math.ceil(
    ((u.prompt_tokens - u.prompt_tokens_details.cached_tokens) * input +
      u.prompt_tokens_details.cached_tokens * cached +
      u.completion_tokens * output) /
      1e6,
  );

test('each call is metered at the price in force when it was made; a new price never rewrites past costs', async () => {
  const set = await api('POST', '/api/v1/relay/prices', {
    model: 'priced-m',
    currency: 'USD',
    input: '2.5',
    cachedInput: '1.25',
    output: '10',
  });
  assert.equal(set.status, 200, set.text);
  assert.deepEqual(
    { ...set.body, effectiveAt: undefined },
    { model: 'priced-m', currency: 'USD', input: '2.5', cachedInput: '1.25', output: '10', effectiveAt: undefined },
  );
  const first = await eventually(
    async () => {
      const c = await chatCall('priced-m');
      return c.row.unpriced ? undefined : c;
    },
    5000,
    'the price to reach the relay',
  );
  // The fake reports cached and reasoning tokens; reasoning is inside completion_tokens.
  assert.ok(
    first.usage.prompt_tokens_details.cached_tokens > 0 && first.usage.completion_tokens_details.reasoning_tokens > 0,
  );
  assert.deepEqual(first.row, {
    input_tokens: first.usage.prompt_tokens,
    output_tokens: first.usage.completion_tokens,
    cached_tokens: first.usage.prompt_tokens_details.cached_tokens,
    reasoning_tokens: first.usage.completion_tokens_details.reasoning_tokens,
    cost_nanos: expected(first.usage, 2_500_000_000, 1_250_000_000, 10_000_000_000),
    currency: 'USD',
    unpriced: false,
  });

  // A later price, and one that only takes effect next year: the current one is listed.
  assert.equal(
    (await api('POST', '/api/v1/relay/prices', { model: 'priced-m', currency: 'USD', input: '5', output: '20' }))
      .status,
    200,
  );
  assert.equal(
    (
      await api('POST', '/api/v1/relay/prices', {
        model: 'priced-m',
        currency: 'USD',
        input: '99',
        output: '99',
        effectiveAt: '2099-01-01T00:00:00Z',
      })
    ).status,
    200,
  );
  const second = await eventually(
    async () => {
      const c = await chatCall('priced-m');
      return c.row.cost_nanos !== first.row.cost_nanos ? c : undefined;
    },
    5000,
    'the new price to reach the relay',
  );
  // cachedInput defaults to the input price.
  assert.equal(second.row.cost_nanos, expected(second.usage, 5_000_000_000, 5_000_000_000, 20_000_000_000));
  const stored = await fx.app.db.any<any>('SELECT cost_nanos FROM relay_usage WHERE model = $1 ORDER BY at', [
    'priced-m',
  ]);
  assert.equal(stored[0].cost_nanos, first.row.cost_nanos, 'the first call keeps its cost');

  const models = (await api('GET', '/api/v1/relay/models')).body.data;
  const priced = models.find((m: any) => m.id === 'priced-m');
  assert.deepEqual([priced.price.input, priced.price.cachedInput, priced.price.output], ['5', '5', '20']);
  assert.equal(models.find((m: any) => m.id === 'free-m').price, null);
  const history = (await api('GET', '/api/v1/relay/prices?model=priced-m')).body.data;
  assert.deepEqual(
    history.map((p: any) => p.input),
    ['99', '5', '2.5'],
  );
});

test('a call to a model without a price is metered as unpriced, not as 0', async () => {
  const { row } = await chatCall('free-m');
  assert.equal(row.unpriced, true);
  assert.equal(row.cost_nanos, null);
  assert.equal(row.currency, null);
  assert.ok(row.input_tokens > 0);
});

test('prices are validated: decimal strings, a currency code, never in the past', async () => {
  const r = await api('POST', '/api/v1/relay/prices', {
    model: 'priced-m',
    currency: 'usd',
    input: 1.5,
    output: '1e3',
    effectiveAt: '2020-01-01T00:00:00Z',
  });
  assert.equal(r.status, 400);
  assert.deepEqual(r.body.errors.map((e: any) => e.path).sort(), ['/currency', '/effectiveAt', '/input', '/output']);
  const model = await api('POST', '/api/v1/relay/models', { id: 'free-m', allowUnpriced: true });
  assert.deepEqual(model.body, { id: 'free-m', efforts: ['low', 'medium', 'high'], kind: 'chat', allowUnpriced: true });
});
