import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { after, before, test } from 'node:test';
import type { FakeUpstream, StreamStats } from './fake-upstream.ts';
import { eventually } from '../helpers/eventually.ts';
import { relayFixture, type RelayFixture } from './setup.ts';

let fx: RelayFixture;
let big: FakeUpstream;
let slow: FakeUpstream;
let key: string;

const BIG_CHUNKS = 4000;
const PAD = 16 * 1024;
const BIG_STREAM_BYTES = BIG_CHUNKS * PAD; // 64 MiB of deltas per stream

before(async () => {
  fx = await relayFixture();
  big = await fx.fake({ chunks: BIG_CHUNKS, padBytes: PAD });
  slow = await fx.fake({ chunks: 100, chunkDelayMs: 100 });
  await fx.channel({ baseUrl: big.base, models: ['big'] });
  await fx.channel({ baseUrl: slow.base, models: ['slow-native'] });
  await fx.channel({ baseUrl: slow.base, models: ['slow-converted'], protocols: ['chat'] });
  key = (await fx.key()).key;
});
after(() => fx.close());

/** A raw streaming request whose reading the test controls. */
async function openStream(model: string): Promise<{ res: http.IncomingMessage; req: http.ClientRequest }> {
  const req = http.request(`${fx.app.url}/v1/chat/completions`, {
    method: 'POST',
    agent: false,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  });
  req.end(JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'go' }] }));
  const [res] = (await once(req, 'response')) as [http.IncomingMessage];
  assert.equal(res.statusCode, 200);
  return { res, req };
}

/** Resolves when the provider's total output has not grown for `quietMs`. */
async function settled(streams: readonly StreamStats[], quietMs = 500): Promise<number> {
  let last = -1;
  let since = Date.now();
  return eventually(
    () => {
      const now = streams.reduce((n, s) => n + s.bytes, 0);
      if (now !== last) {
        last = now;
        since = Date.now();
        return undefined;
      }
      return Date.now() - since >= quietMs ? now : undefined;
    },
    20_000,
    'the provider to stop writing',
  );
}

test('slow readers pause the upstream: memory stays bounded, and the stream arrives whole', async () => {
  const N = 8;
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const clients = await Promise.all(Array.from({ length: N }, () => openStream('big')));
  for (const c of clients) c.res.pause();
  const produced = await settled(big.streams);
  const rssGrowth = process.memoryUsage().rss - rssBefore;
  assert.equal(big.streams.length, N);
  for (const s of big.streams) {
    assert.equal(s.finished, false);
    // What sits in the kernel's socket buffers of both hops plus one chunk per stage.
    assert.ok(s.bytes < BIG_STREAM_BYTES / 3, `provider wrote ${s.bytes} bytes into a paused stream`);
  }
  assert.ok(rssGrowth < 200 * 1024 * 1024, `rss grew by ${rssGrowth} bytes with ${produced} bytes produced`);

  // Reading again lets the provider finish, and nothing was lost on the way.
  const [first, ...rest] = clients;
  let received = '';
  first!.res.setEncoding('utf8');
  first!.res.on('data', (d: string) => (received += d));
  first!.res.resume();
  await once(first!.res, 'end');
  const frames = received.split('\n\n').filter(Boolean);
  assert.equal(frames.filter((f) => f.includes('"content":"')).length, BIG_CHUNKS + 1);
  assert.equal(frames.at(-1), 'data: [DONE]');
  const done = big.streams.filter((s) => s.finished);
  assert.equal(done.length, 1);
  // Every frame whole; the usage Radar asked for on the client's behalf is all that was left out.
  for (const f of frames.slice(0, -1))
    assert.equal(JSON.parse(f.slice('data: '.length)).object, 'chat.completion.chunk');
  assert.ok(!received.includes('"usage"'));
  assert.ok(Buffer.byteLength(received) < done[0]!.bytes);

  // Hanging up the others cuts their upstream requests.
  for (const c of rest) c.req.destroy();
  await eventually(
    () => (big.streams.filter((s) => s.cutOff).length === N - 1 ? true : undefined),
    3000,
    'upstream streams to close',
  );
});

for (const model of ['slow-native', 'slow-converted']) {
  test(`a client that disconnects aborts the upstream request at once (${model})`, async () => {
    const client = fx.client(key);
    const controller = new AbortController();
    const stream = await client.responses.create({ model, input: 'x', stream: true }, { signal: controller.signal });
    let deltas = 0;
    for await (const e of stream) {
      if (e.type === 'response.output_text.delta' && ++deltas === 2) {
        controller.abort();
        break;
      }
    }
    const upstream = slow.streams.at(-1)!;
    const abortedAt = Date.now();
    const ended =
      upstream.cutOff || upstream.finished ? upstream : ((await once(slow.events, 'stream-end')) as [StreamStats])[0];
    assert.equal(ended, upstream);
    assert.equal(upstream.cutOff, true);
    // The provider pauses 100 ms per frame and has ~98 frames to go: only an abort ends it this soon.
    assert.ok(Date.now() - abortedAt < 1000, `upstream closed ${Date.now() - abortedAt} ms after the client left`);
    await eventually(
      async () => {
        const row = await fx.app.db.oneOrNone('SELECT status FROM relay_usage WHERE model = $1 AND status = 499', [
          model,
        ]);
        return row ?? undefined;
      },
      5000,
      'the aborted call to be metered as 499',
    );
  });
}

test('each upstream frame is forwarded the moment it arrives', async () => {
  slow.options.chunks = 4;
  slow.options.chunkDelayMs = 250;
  const arrivals: number[] = [];
  for await (const c of await fx
    .client(key)
    .chat.completions.create({ model: 'slow-native', messages: [{ role: 'user', content: 'x' }], stream: true })) {
    if (c.choices[0]?.delta.content) arrivals.push(performance.now());
  }
  assert.equal(arrivals.length, 4);
  // Buffering (or batching) would deliver the deltas together at the end.
  for (let i = 1; i < arrivals.length; i++)
    assert.ok(
      arrivals[i]! - arrivals[i - 1]! > 150,
      `gaps ${arrivals.map((a, j) => (j ? Math.round(a - arrivals[j - 1]!) : 0))}`,
    );
});
