import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { RESPONSE_HOME_TTL_S } from '../../src/relay/followups.ts';
import { eventually } from '../helpers/eventually.ts';
import { call } from '../helpers/http.ts';
import type { FakeUpstream } from './fake-upstream.ts';
import { relayFixture, type RelayFixture } from './setup.ts';

// Two channels serve the model at the same priority, so without pinning a follow-up would land
// on either; `previous_response_id` must always reach the channel holding the conversation.
let fx: RelayFixture;
const fakes: FakeUpstream[] = [];
const channelIds: string[] = [];
let key: string;
let redis: Redis;

before(async () => {
  fx = await relayFixture();
  for (let i = 0; i < 2; i++) {
    const f = await fx.fake({ protocols: ['responses'] });
    fakes.push(f);
    channelIds.push(
      await fx.channel({ name: `home-${i}`, baseUrl: f.base, models: ['fu-model'], protocols: ['responses'] }),
    );
  }
  ({ key } = await fx.key());
  redis = new Redis(fx.app.config.REDIS_URL);
});
after(async () => {
  redis.disconnect();
  await fx.close();
});

const respond = (body: Record<string, unknown>) =>
  call(fx.app.url, 'POST', '/v1/responses', { bearer: key, body: { model: 'fu-model', input: 'hi', ...body } });
const counts = () => fakes.map((f) => f.received.length);
/** Which fake served the last call, given the counts before it. */
const servedBy = (before: number[]) => counts().findIndex((n, i) => n > before[i]!);

/** A first call; answers its response id and which channel produced it. */
async function converse(stream: boolean): Promise<{ id: string; home: number }> {
  const before = counts();
  const res = await respond(stream ? { stream: true } : {});
  assert.equal(res.status, 200, res.text);
  const id = stream ? /"id":"(resp_[^"]+)"/.exec(res.text)![1]! : res.body.id;
  return { id, home: servedBy(before) };
}

test('a follow-up goes to the channel that produced the previous response, streamed or not', async () => {
  for (const stream of [false, true]) {
    const { id, home } = await converse(stream);
    // Remembered off the answer's path, for as long as the provider keeps responses.
    const ttl = await eventually(async () => {
      const t = await redis.ttl(`${fx.app.config.QUEUE_PREFIX}:relay:response:${id}`);
      return t > 0 ? t : undefined;
    });
    assert.ok(ttl > RESPONSE_HOME_TTL_S - 60, `ttl ${ttl}`);
    for (let i = 0; i < 8; i++) {
      const before = counts();
      const res = await respond({ previous_response_id: id, stream });
      assert.equal(res.status, 200, res.text);
      assert.equal(servedBy(before), home, `follow-up ${i} of a ${stream ? 'streamed' : 'whole'} answer`);
      assert.equal(fakes[home]!.received.at(-1)!.body.previous_response_id, id);
    }
  }
});

test('a follow-up whose channel is down fails with a clear error instead of going to the other', async () => {
  const { id, home } = await converse(false);
  const other = 1 - home;
  // An id Radar never saw is routed as usual.
  assert.equal((await respond({ previous_response_id: 'resp_unknown' })).status, 200);

  await fakes[home]!.close();
  const before = counts();
  const res = await respond({ previous_response_id: id });
  assert.equal(res.status, 503);
  assert.equal(res.body.error.code, 'previous_response_unavailable');
  assert.equal(res.body.error.param, 'previous_response_id');
  assert.match(res.body.error.message, new RegExp(`'${id}' is held by channel 'home-${home}': .*ECONNREFUSED`));
  assert.deepEqual(counts(), before, 'nothing was sent to the other channel');
  // Calls that start a conversation still fail over.
  assert.equal((await respond({})).status, 200);

  // A channel the admin disabled: the same error, within the directory's second.
  const kept = await converse(false);
  assert.equal(kept.home, other);
  await fx.app.db.none('UPDATE relay_channels SET enabled = false WHERE id = $1', [channelIds[other]]);
  const refused = await eventually(async () => {
    const r = await respond({ previous_response_id: kept.id });
    return r.status === 503 ? r : undefined;
  });
  assert.equal(refused.body.error.code, 'previous_response_unavailable');
  assert.match(refused.body.error.message, /is held by a channel that is disabled or no longer serves 'fu-model'/);
});
