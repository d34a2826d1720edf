import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { call } from '../helpers/http.ts';
import { relayFixture, type RelayFixture } from './setup.ts';

let fx: RelayFixture;
before(async () => {
  fx = await relayFixture({ RATE_LIMIT_RELAY_KEY_PER_MIN: '2', METRICS_TOKEN: 'metrics-token-0123456789' });
  const upstream = await fx.fake();
  await fx.channel({ baseUrl: upstream.base, models: ['gpt-limited', 'gpt-metered'] });
});
after(() => fx.close());

test('a relay key past its budget gets 429 in OpenAI shape with Retry-After; other keys are unaffected', async () => {
  const { key } = await fx.key();
  const client = fx.client(key);
  for (let i = 0; i < 2; i++) {
    const r = await client.chat.completions.create({
      model: 'gpt-limited',
      messages: [{ role: 'user', content: 'hi there' }],
    });
    assert.ok(r.choices[0]!.message.content);
  }
  await assert.rejects(
    client.chat.completions.create({ model: 'gpt-limited', messages: [{ role: 'user', content: 'hi' }] }),
    (err: unknown) => {
      assert.ok(err instanceof OpenAI.APIError);
      assert.equal(err.status, 429);
      assert.equal(err.code, 'rate_limited');
      assert.ok(Number(err.headers?.get('retry-after')) >= 1);
      assert.equal(err.headers?.get('ratelimit-limit'), '2');
      return true;
    },
  );
  const other = fx.client((await fx.key()).key);
  const ok = await other.chat.completions.create({
    model: 'gpt-limited',
    messages: [{ role: 'user', content: 'hello' }],
  });
  assert.equal(ok.object, 'chat.completion');
});

test('relayed tokens and time to first byte are exported as metrics', async () => {
  const client = fx.client((await fx.key()).key);
  const r = await client.chat.completions.create({
    model: 'gpt-metered',
    messages: [{ role: 'user', content: 'count these words please' }],
  });
  const scrape = await call(fx.app.url, 'GET', '/metrics', { bearer: 'metrics-token-0123456789' });
  const line = (name: string) => scrape.text.split('\n').find((l) => l.startsWith(name))!;
  const value = (name: string) => Number(line(name).split(' ').pop());
  // The only call of this model: the counters hold exactly its provider-reported usage.
  assert.equal(value('radar_relay_tokens_total{model="gpt-metered",direction="input"}'), r.usage!.prompt_tokens);
  assert.equal(value('radar_relay_tokens_total{model="gpt-metered",direction="output"}'), r.usage!.completion_tokens);
  assert.equal(value('radar_relay_time_to_first_byte_seconds_count{model="gpt-metered"}'), 1);
});
