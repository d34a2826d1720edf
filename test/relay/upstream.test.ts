import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Channel } from '../../src/relay/directory.ts';
import { UpstreamPools, type UpstreamBody } from '../../src/relay/upstream.ts';
import { eventually } from '../helpers/eventually.ts';
import { startFakeUpstream, type FakeUpstream } from './fake-upstream.ts';

let fake: FakeUpstream;
let channel: Channel;
const pools = new UpstreamPools();

before(async () => {
  fake = await startFakeUpstream();
  const url = new URL(fake.base);
  channel = {
    id: 'c1',
    name: 'fake',
    origin: url.origin,
    basePath: url.pathname,
    apiKey: null,
    protocols: new Set(['embeddings']),
    priority: 0,
    weight: 1,
  };
});
after(async () => {
  await pools.close();
  await fake.close();
});

/** An embeddings answer of about 1.3 MB: many socket reads. */
const BIG = JSON.stringify({
  model: 'm',
  input: Array.from({ length: 20_000 }, (_, i) => `w${i}`),
  encoding_format: 'base64',
});

/** Whether undici stopped reading the socket for this body; its controller is private to it. */
const paused = (body: UpstreamBody) => (body as unknown as { controller: { paused: boolean } }).controller.paused;

test('a body read long after its head arrived is whole (undici was paused meanwhile, then resumed)', async () => {
  const res = await pools.request(channel, 'embeddings', BIG, false, new AbortController().signal);
  assert.equal(res.statusCode, 200);
  // Nobody reads: undici is paused once a bounded amount is held.
  await eventually(() => paused(res.body) || undefined, 10_000, 'undici to be paused');
  const answer = JSON.parse((await res.body.readAll(16 * 1024 * 1024)).toString('utf8'));
  assert.equal(answer.data.length, 20_000);
  assert.ok(answer.data.every((d: { index: number }, i: number) => d.index === i));
  assert.equal(answer.usage.prompt_tokens, 20_000);
  assert.equal(paused(res.body), false, 'resumed by the reader');
});

test("a body over the caller's limit is refused and the request aborted", async () => {
  const res = await pools.request(channel, 'embeddings', BIG, false, new AbortController().signal);
  await assert.rejects(res.body.readAll(64 * 1024), /exceeded 65536 bytes/);
  // The pool is still usable afterwards.
  const again = await pools.request(
    channel,
    'embeddings',
    JSON.stringify({ model: 'm', input: 'one two' }),
    false,
    new AbortController().signal,
  );
  assert.equal(JSON.parse((await again.body.readAll(1024 * 1024)).toString()).usage.prompt_tokens, 2);
});

test('aborting the signal while the body streams ends the read with the abort', async () => {
  const controller = new AbortController();
  const res = await pools.request(channel, 'embeddings', BIG, false, controller.signal);
  const read = res.body.readAll(16 * 1024 * 1024);
  controller.abort();
  await assert.rejects(read, { name: 'AbortError' });
});
