import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { routesFor, type Channel, type Model } from '../../src/relay/directory.ts';
import { call } from '../helpers/http.ts';
import type { FakeUpstream } from './fake-upstream.ts';
import { relayFixture, type RelayFixture } from './setup.ts';

let fx: RelayFixture;
let failing: FakeUpstream;
let healthy: FakeUpstream;
let low: FakeUpstream;
let key: string;

/** A loopback port with nothing listening: connecting to it is refused at once. */
async function deadPort(): Promise<number> {
  const s = net.createServer().listen(0, '127.0.0.1');
  await new Promise((r) => s.once('listening', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

before(async () => {
  fx = await relayFixture();
  failing = await fx.fake({ failStatus: 503 });
  healthy = await fx.fake();
  low = await fx.fake();
  const dead = `http://127.0.0.1:${await deadPort()}/v1`;
  // Tried in priority order: refused connection, then 503, then the healthy channel; the
  // low-priority channel is never needed.
  await fx.channel({ baseUrl: dead, models: ['routed'], priority: 30 });
  await fx.channel({ baseUrl: failing.base, models: ['routed', 'all-down'], priority: 20 });
  await fx.channel({ baseUrl: healthy.base, models: ['routed'], priority: 10 });
  await fx.channel({ baseUrl: low.base, models: ['routed'], priority: 0 });
  await fx.channel({ baseUrl: dead, models: ['all-down'], priority: 5 });
  key = (await fx.key()).key;
});
after(() => fx.close());

test('fails over on a refused connection and on a 5xx, before the first byte, streamed or not', async () => {
  const client = fx.client(key);
  const r = await client.responses.create({ model: 'routed', input: 'x' });
  assert.equal(r.status, 'completed');
  const chunks: string[] = [];
  for await (const c of await client.chat.completions.create({
    model: 'routed',
    messages: [{ role: 'user', content: 'x' }],
    stream: true,
  }))
    chunks.push(c.choices[0]?.delta.content ?? '');
  assert.equal(chunks.join(''), 'Hello t1 t2 t3 t4');
  assert.equal(failing.received.length, 2);
  assert.equal(healthy.received.length, 2);
  assert.equal(low.received.length, 0);
});

test('when every channel fails, the last upstream status and every reason are passed on', async () => {
  const r = await call(fx.app.url, 'POST', '/v1/responses', { bearer: key, body: { model: 'all-down', input: 'x' } });
  assert.equal(r.status, 503, r.text);
  assert.equal(r.body.error.code, 'upstream_error');
  assert.match(r.body.error.message, /answered 503: The fake provider is failing on purpose/);
  assert.match(r.body.error.message, /ECONNREFUSED/);
});

function channel(
  id: string,
  priority: number,
  weight: number,
  protocols: Channel['protocols'] = new Set(['chat', 'responses']),
): Channel {
  return { id, name: id, origin: 'http://x', basePath: '/v1', apiKey: null, protocols, priority, weight };
}

test('routes go by priority, then by weight among equals, and convert for channels speaking the other protocol', () => {
  const model: Model = {
    id: 'm',
    efforts: [],
    kind: null,
    created: 0,
    prices: [],
    allowUnpriced: false,
    channels: [
      channel('top', 9, 1),
      channel('heavy', 1, 3),
      channel('light', 1, 1),
      channel('chat', 0, 1, new Set(['chat'])),
    ],
  };
  let firstHeavy = 0;
  let seed = 1;
  // A deterministic generator keeps the proportion test exact instead of flaky.
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  for (let i = 0; i < 4000; i++) {
    const order = routesFor(model, 'responses', random);
    assert.equal(order[0]!.channel.id, 'top');
    assert.deepEqual(order[3], { channel: model.channels[3], upstream: 'chat' });
    if (order[1]!.channel.id === 'heavy') firstHeavy++;
  }
  assert.ok(Math.abs(firstHeavy / 4000 - 0.75) < 0.03, `heavy first ${firstHeavy} of 4000`);
  assert.deepEqual(routesFor(model, 'embeddings').length, 0);
  const responsesOnly = channel('responses', 0, 1, new Set(['responses']));
  assert.deepEqual(routesFor({ ...model, channels: [responsesOnly] }, 'chat'), [
    { channel: responsesOnly, upstream: 'responses' },
  ]);
});
