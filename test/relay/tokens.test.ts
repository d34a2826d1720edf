import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eventually } from '../helpers/eventually.ts';
import { UsageStripper } from '../../src/relay/usage-strip.ts';
import { noUsage } from '../../src/relay/usage.ts';
import type { FakeUpstream } from './fake-upstream.ts';
import { relayFixture, type RelayFixture } from './setup.ts';

// Every path a call can take (native and converted both ways, streamed and not, a native chat
// stream with and without include_usage, embeddings), each metered with exactly the tokens the
// provider reported.
let fx: RelayFixture;
let both: FakeUpstream;
let chatOnly: FakeUpstream;
let responsesOnly: FakeUpstream;
let key: string;

before(async () => {
  fx = await relayFixture();
  both = await fx.fake();
  chatOnly = await fx.fake({ protocols: ['chat'] });
  responsesOnly = await fx.fake({ protocols: ['responses'] });
  await fx.channel({ baseUrl: both.base, models: ['tok-native', 'tok-embed'] });
  await fx.channel({ baseUrl: chatOnly.base, models: ['tok-chat-only'], protocols: ['chat'] });
  await fx.channel({ baseUrl: responsesOnly.base, models: ['tok-responses-only'], protocols: ['responses'] });
  await fx.model('tok-embed', [], 'embedding');
  ({ key } = await fx.key());
});
after(() => fx.close());

const post = (path: string, body: unknown, bearer?: string, base = fx.app.url) =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    body: JSON.stringify(body),
  });

/** What the provider reported, in relay_usage's names. */
function reported(u: Record<string, any>) {
  return {
    input_tokens: u.input_tokens ?? u.prompt_tokens,
    cached_tokens: u.input_tokens_details?.cached_tokens ?? u.prompt_tokens_details?.cached_tokens ?? null,
    output_tokens: u.output_tokens ?? u.completion_tokens ?? 0,
    reasoning_tokens:
      u.output_tokens_details?.reasoning_tokens ?? u.completion_tokens_details?.reasoning_tokens ?? null,
  };
}

async function meteredRow(requestId: string | null) {
  return eventually(
    async () =>
      (await fx.app.db.oneOrNone(
        'SELECT input_tokens, cached_tokens, output_tokens, reasoning_tokens FROM relay_usage WHERE request_id = $1',
        [requestId],
      )) ?? undefined,
    5000,
    'the usage row',
  );
}

const PATHS = [
  { name: 'chat native', path: '/v1/chat/completions', model: 'tok-native', upstream: () => both },
  {
    name: 'chat → Responses',
    path: '/v1/chat/completions',
    model: 'tok-responses-only',
    upstream: () => responsesOnly,
  },
  { name: 'Responses native', path: '/v1/responses', model: 'tok-native', upstream: () => both },
  { name: 'Responses → chat', path: '/v1/responses', model: 'tok-chat-only', upstream: () => chatOnly },
];

test('every path meters the input, cached, output and reasoning tokens the provider reported', async () => {
  const cases: { name: string; path: string; model: string; upstream: () => FakeUpstream; body: object }[] = [];
  for (const p of PATHS) {
    const chat = p.path === '/v1/chat/completions';
    const base = chat
      ? { model: p.model, messages: [{ role: 'user', content: 'count these four words' }], reasoning_effort: 'high' }
      : { model: p.model, input: 'count these four words please', reasoning: { effort: 'low' } };
    cases.push({ ...p, name: `${p.name}, whole`, body: base });
    cases.push({ ...p, name: `${p.name}, streamed`, body: { ...base, stream: true } });
    if (chat)
      cases.push({
        ...p,
        name: `${p.name}, streamed with include_usage`,
        body: { ...base, stream: true, stream_options: { include_usage: true } },
      });
  }
  cases.push({
    name: 'embeddings',
    path: '/v1/embeddings',
    model: 'tok-embed',
    upstream: () => both,
    body: { model: 'tok-embed', input: ['one two', 'three'] },
  });

  for (const c of cases) {
    const res = await post(c.path, c.body, key);
    const text = await res.text();
    assert.equal(res.status, 200, `${c.name}: ${text}`);
    const upstream = c.upstream().received.at(-1)!;
    const row = await meteredRow(res.headers.get('x-request-id'));
    const expected = reported(upstream.usage!);
    assert.ok(expected.input_tokens > 0 && expected.output_tokens >= 0, c.name);
    assert.deepEqual(row, expected, c.name);
  }
});

test('a native chat stream without include_usage is metered, and the client gets exactly the frames it asked for', async () => {
  const body = {
    model: 'tok-native',
    messages: [{ role: 'user', content: 'three more words' }],
    stream: true,
    stream_options: { include_obfuscation: false },
  };
  const res = await post('/v1/chat/completions', body, key);
  const relayed = await res.text();
  const upstream = both.received.at(-1)!;
  // Radar asked for the usage on the client's behalf, keeping the client's other stream options…
  assert.deepEqual(upstream.body.stream_options, { include_obfuscation: false, include_usage: true });
  // …and the client got what the provider sends a client that did not ask: byte for byte, ids aside.
  const direct = await (await post('/v1/chat/completions', body, undefined, both.url)).text();
  const same = (t: string) => t.replace(/fake\d+/g, 'fakeN').replace(/"created":\d+/g, '"created":0');
  assert.ok(!relayed.includes('usage'), relayed);
  assert.equal(same(relayed), same(direct));
  assert.deepEqual(await meteredRow(res.headers.get('x-request-id')), reported(upstream.usage!));
});

test('the usage stripper hands on the same bytes wherever the reads cut the stream', () => {
  const usage = { prompt_tokens: 7, completion_tokens: 9, prompt_tokens_details: { cached_tokens: 3 } };
  const frame = (o: object) => `data: ${JSON.stringify(o)}\n\n`;
  const chunk = (content: string, extra: object) => ({
    id: 'c1',
    choices: [{ index: 0, delta: { content } }],
    ...extra,
  });
  const sent =
    frame(chunk('Hello "usage": {x}', { usage: null })) +
    frame({ usage: null, ...chunk(' world', {}) }) +
    frame({ id: 'c1', choices: [], usage }) +
    'data: [DONE]\n\n';
  const wanted = `${frame(chunk('Hello "usage": {x}', {})) + frame(chunk(' world', {}))}data: [DONE]\n\n`;
  // A provider that attaches usage to its last chunk with choices: that chunk stays, without it.
  const attached = `${frame(chunk('Hi', { usage }))}data: [DONE]`;
  // Frames ended by CR LF CR LF, alone and mixed with LF LF (a frame end is searched for both).
  const crlf = (text: string) => text.replaceAll('\n\n', '\r\n\r\n');
  const mixed = (text: string) => text.replace('\n\n', '\r\n\r\n');
  for (const [input, output] of [
    [sent, wanted],
    [attached, `${frame(chunk('Hi', {}))}data: [DONE]`],
    [crlf(sent), crlf(wanted)],
    [mixed(sent), mixed(wanted)],
    [crlf(sent).replace('\r\n\r\n', '\n\n'), crlf(wanted).replace('\r\n\r\n', '\n\n')],
  ] as const) {
    const bytes = Buffer.from(input);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const metered = noUsage();
      const stripper = new UsageStripper(metered);
      const out = [stripper.take(bytes.subarray(0, cut)), stripper.take(bytes.subarray(cut)), stripper.finish()];
      assert.equal(Buffer.concat(out.filter((b) => b !== null)).toString(), output, `cut at ${cut}`);
      // Complete frames are handed on with the read that completes them, never held to the end.
      if (cut === bytes.length && /(\n\n|\r\n\r\n)$/.test(input)) assert.equal(out[0]?.toString(), output);
      assert.deepEqual(metered, { input_tokens: 7, output_tokens: 9, cached_tokens: 3, reasoning_tokens: null });
    }
  }
});
