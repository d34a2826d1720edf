import { createOpenAI } from '@ai-sdk/openai';
import { generateText, streamText } from 'ai';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { deltas, type FakeUpstream, type Received } from './fake-upstream.ts';
import { relayFixture, type RelayFixture } from './setup.ts';

// Real clients against Radar, each through a channel that speaks its protocol natively and one
// that needs conversion. The exact bodies they send are kept in fixtures/<client>.<endpoint>.json
// (rewritten from what the provider received natively when RADAR_UPDATE_FIXTURES=1) and replayed
// through both paths, so a client's next release can be checked against the relay by a diff.
const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const UPDATE = process.env.RADAR_UPDATE_FIXTURES === '1';
const TEXT = deltas(5).join('');
const HEADER = 'x-radar-dropped-fields';

let fx: RelayFixture;
let both: FakeUpstream;
let chatOnly: FakeUpstream;
let responsesOnly: FakeUpstream;
let key: string;
const logs: any[] = [];

before(async () => {
  fx = await relayFixture({}, capturingLogger(logs));
  both = await fx.fake();
  chatOnly = await fx.fake({ protocols: ['chat'] });
  responsesOnly = await fx.fake({ protocols: ['responses'] });
  await fx.channel({ baseUrl: both.base, models: ['gpt-native'] });
  await fx.channel({ baseUrl: chatOnly.base, models: ['chat-only'], protocols: ['chat'] });
  await fx.channel({ baseUrl: responsesOnly.base, models: ['responses-only'], protocols: ['responses'] });
  ({ key } = await fx.key());
});
after(() => fx.close());

const last = (f: FakeUpstream): Received => f.received[f.received.length - 1]!;
const names = (header: string | null | undefined) => (header ? header.split(', ') : []);

/** Keeps what a client sent natively (byte for byte, as the provider got it) as its fixture. */
async function record(name: string, got: Received): Promise<void> {
  if (UPDATE) await writeFile(join(FIXTURES, name), got.raw);
}

/** The log line of a converted call that left fields out. */
function droppedLog(field: string) {
  return logs.find((l) => l.msg?.startsWith('relay: fields') && l.dropped?.includes(field));
}

describe('Codex CLI (codex exec)', () => {
  const require = createRequire(import.meta.url);
  const codexBin = require.resolve('@openai/codex/bin/codex.js');

  /**
   * One `codex exec` run with a throwaway CODEX_HOME whose config points a custom provider at
   * Radar's /v1. Timeouts are generous and nothing is timed: the machine may be loaded.
   */
  async function codex(model: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const home = await mkdtemp(join(tmpdir(), 'radar-codex-'));
    try {
      await writeFile(
        join(home, 'config.toml'),
        [
          `model = "${model}"`,
          'model_provider = "radar"',
          '[model_providers.radar]',
          'name = "Radar"',
          `base_url = "${fx.app.url}/v1"`,
          'env_key = "RADAR_RELAY_KEY"',
          'wire_api = "responses"',
          '',
        ].join('\n'),
      );
      // Anything Codex would fetch from the internet (updates, analytics) goes to a proxy that
      // refuses at once, so a machine without network neither hangs the run nor changes it.
      const noNet = 'http://127.0.0.1:9';
      const env = {
        PATH: process.env.PATH ?? '',
        HOME: home,
        CODEX_HOME: home,
        RADAR_RELAY_KEY: key,
        HTTP_PROXY: noNet,
        HTTPS_PROXY: noNet,
        ALL_PROXY: noNet,
        NO_PROXY: '127.0.0.1,localhost',
      };
      return await new Promise((resolve) => {
        const child = execFile(
          process.execPath,
          [codexBin, 'exec', '--skip-git-repo-check', 'say hello'],
          { cwd: home, env, timeout: 300_000, maxBuffer: 64 * 1024 * 1024 },
          (err, stdout, stderr) => {
            resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
          },
        );
        // codex exec reads more prompt from a stdin that stays open.
        child.stdin?.end();
      });
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }

  test('a channel that speaks Responses: Codex gets its answer, its request forwarded untouched', async () => {
    const before = both.received.length;
    const run = await codex('gpt-native');
    assert.equal(run.code, 0, `codex exec failed:\n${run.stderr}`);
    assert.match(run.stdout, new RegExp(TEXT));
    const got = both.received.slice(before).find((r) => r.path === '/v1/responses');
    assert.ok(got, 'the provider got the Responses call');
    assert.ok(got.body.client_metadata, 'Codex sends client_metadata');
    await record('codex-exec.responses.json', got);
  });

  test('a chat-only channel: Codex works through the conversion, what was left out is logged', async () => {
    const before = chatOnly.received.length;
    const run = await codex('chat-only');
    assert.equal(run.code, 0, `codex exec failed:\n${run.stderr}`);
    assert.match(run.stdout, new RegExp(TEXT));
    const got = chatOnly.received.slice(before).find((r) => r.path === '/v1/chat/completions');
    assert.ok(got, 'the chat provider got the converted call');
    for (const f of ['client_metadata', 'prompt_cache_key', 'include', 'store']) assert.equal(f in got.body, false, f);
    assert.equal(got.body.messages[0].role, 'system');
    const tools = got.body.tools.map((t: any) => `${t.type}:${t.function.name}`);
    assert.ok(
      tools.includes('function:exec_command') && tools.includes('function:multi_agent_v1__spawn_agent'),
      tools.join(),
    );
    const line = droppedLog('client_metadata');
    assert.ok(line, 'the dropped fields are logged');
    assert.equal(typeof line.reqId, 'string');
    assert.equal(line.model, 'chat-only');
  });
});

describe('openai SDK', () => {
  let sent: string[] = [];
  let client: OpenAI;
  before(() => {
    client = new OpenAI({
      apiKey: key,
      baseURL: `${fx.app.url}/v1`,
      maxRetries: 0,
      timeout: 60_000,
      fetch: async (url, init) => {
        if (typeof init?.body === 'string') sent.push(init.body);
        return fetch(url, init);
      },
    });
  });

  // What clients put on Responses calls besides the question: none of it changes the answer.
  const extras = {
    store: false,
    metadata: { run: 'ci' },
    prompt_cache_key: 'thread-1',
    safety_identifier: 'user-hash',
    service_tier: 'auto',
    include: ['reasoning.encrypted_content'],
    truncation: 'auto',
    reasoning: { summary: 'auto' },
    client_metadata: { session_id: 's-1' },
    x_future_field: { anything: true },
  } as const;
  const expected = [
    'store',
    'metadata',
    'prompt_cache_key',
    'safety_identifier',
    'service_tier',
    'include',
    'truncation',
    'client_metadata',
    'x_future_field',
    'reasoning.summary',
  ];
  const params = (model: string) =>
    ({ model, input: 'say hello', ...extras }) as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming;

  test('Responses with extra fields, native: forwarded as sent, nothing reported dropped', async () => {
    const { data, response } = await client.responses.create(params('gpt-native')).withResponse();
    assert.equal(data.output_text, TEXT);
    assert.equal(response.headers.get(HEADER), null);
    assert.equal(last(both).raw, sent[sent.length - 1]);
    await record('openai-sdk.responses.json', last(both));
  });

  test('Responses with extra fields, converted: answered, every dropped field named, streamed or not', async () => {
    const { data, response } = await client.responses.create(params('chat-only')).withResponse();
    assert.equal(data.output_text, TEXT);
    assert.deepEqual(names(response.headers.get(HEADER)).sort(), [...expected].sort());
    for (const f of ['client_metadata', 'x_future_field', 'store', 'metadata'])
      assert.equal(f in last(chatOnly).body, false, f);

    const streamed = await client.responses
      .create({ ...params('chat-only'), stream: true } as OpenAI.Responses.ResponseCreateParamsStreaming)
      .withResponse();
    assert.deepEqual(names(streamed.response.headers.get(HEADER)).sort(), [...expected].sort());
    let text = '';
    for await (const e of streamed.data) if (e.type === 'response.output_text.delta') text += e.delta;
    assert.equal(text, TEXT);
  });

  test("a field that would change the answer is still refused, in OpenAI's error body", async () => {
    const err = await client.responses.create({ ...params('chat-only'), previous_response_id: 'resp_1' }).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(err instanceof OpenAI.BadRequestError, String(err));
    assert.equal(err.code, 'unsupported_parameter');
    assert.equal(err.param, 'previous_response_id');
  });

  test('chat with extra fields, converted to Responses: neutral and unknown fields named, streamed or not', async () => {
    sent = [];
    const body = {
      model: 'gpt-native',
      messages: [{ role: 'user', content: 'say hello' }],
      n: 1,
      frequency_penalty: 0,
      logprobs: false,
      metadata: { run: 'ci' },
      store: false,
      user: 'u-1',
      x_tracing: { span: 'a' },
    } as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;
    const native = await client.chat.completions.create(body).withResponse();
    assert.equal(native.response.headers.get(HEADER), null);
    assert.equal(last(both).raw, sent[0]);
    await record('openai-sdk.chat.json', last(both));
    // Streamed natively without include_usage: Radar asks the provider for usage and takes it
    // out again, so the SDK sees no usage field on any chunk, as it would from the provider.
    const nativeStream = await client.chat.completions.create({
      ...body,
      stream: true,
    } as OpenAI.Chat.ChatCompletionCreateParamsStreaming);
    let nativeText = '';
    for await (const c of nativeStream) {
      assert.equal('usage' in c, false);
      nativeText += c.choices[0]?.delta.content ?? '';
    }
    assert.equal(nativeText, TEXT);
    assert.equal(last(both).body.stream_options.include_usage, true);
    const { data, response } = await client.chat.completions
      .create({ ...body, model: 'responses-only' })
      .withResponse();
    assert.equal(data.choices[0]!.message.content, TEXT);
    assert.deepEqual(names(response.headers.get(HEADER)), ['n', 'frequency_penalty', 'logprobs', 'x_tracing']);
    assert.equal(last(responsesOnly).body.metadata.run, 'ci');
    assert.equal('x_tracing' in last(responsesOnly).body, false);

    const streamed = await client.chat.completions
      .create({ ...body, model: 'responses-only', stream: true } as OpenAI.Chat.ChatCompletionCreateParamsStreaming)
      .withResponse();
    assert.deepEqual(names(streamed.response.headers.get(HEADER)), ['n', 'frequency_penalty', 'logprobs', 'x_tracing']);
    let text = '';
    for await (const c of streamed.data) text += c.choices[0]?.delta.content ?? '';
    assert.equal(text, TEXT);
  });
});

describe('Vercel AI SDK (ai + @ai-sdk/openai)', () => {
  const sent: string[] = [];
  const provider = () =>
    createOpenAI({
      apiKey: key,
      baseURL: `${fx.app.url}/v1`,
      fetch: async (url, init) => {
        if (typeof init?.body === 'string') sent.push(init.body);
        return fetch(url, init);
      },
    });
  const providerOptions = {
    openai: {
      user: 'u-1',
      metadata: { run: 'ci' },
      store: false,
      promptCacheKey: 'thread-1',
      safetyIdentifier: 'user-hash',
    },
  };

  test("Responses (the provider's default), native and converted, streamed and not", async () => {
    const openai = provider();
    const native = await generateText({
      model: openai('gpt-native'),
      prompt: 'say hello',
      providerOptions,
      maxRetries: 0,
    });
    assert.equal(native.text, TEXT);
    assert.equal(native.response.headers?.[HEADER], undefined);
    assert.equal(last(both).raw, sent[sent.length - 1]);
    await record('ai-sdk.responses.json', last(both));

    const converted = await generateText({
      model: openai('chat-only'),
      prompt: 'say hello',
      providerOptions,
      maxRetries: 0,
    });
    assert.equal(converted.text, TEXT);
    assert.deepEqual(names(converted.response.headers?.[HEADER]).sort(), [
      'metadata',
      'prompt_cache_key',
      'safety_identifier',
      'store',
    ]);
    assert.equal(last(chatOnly).body.user, 'u-1');

    const stream = streamText({ model: openai('chat-only'), prompt: 'say hello', providerOptions, maxRetries: 0 });
    let text = '';
    for await (const d of stream.textStream) text += d;
    assert.equal(text, TEXT);
    assert.deepEqual(names((await stream.response).headers?.[HEADER]).sort(), [
      'metadata',
      'prompt_cache_key',
      'safety_identifier',
      'store',
    ]);
  });

  test('chat completions, converted to Responses: every field carried, nothing dropped', async () => {
    const openai = provider();
    const stream = streamText({
      model: openai.chat('gpt-native'),
      prompt: 'say hello',
      providerOptions,
      maxRetries: 0,
    });
    for await (const _ of stream.textStream);
    await record('ai-sdk.chat.json', last(both));
    const converted = streamText({
      model: openai.chat('responses-only'),
      prompt: 'say hello',
      providerOptions,
      maxRetries: 0,
    });
    let text = '';
    for await (const d of converted.textStream) text += d;
    assert.equal(text, TEXT);
    assert.equal((await converted.response).headers?.[HEADER], undefined);
    assert.equal(last(responsesOnly).body.prompt_cache_key, 'thread-1');
  });
});

/**
 * Expected dropped names per fixture, written out by hand: the replay must not derive them
 * from the rule it checks.
 */
const REPLAY: Readonly<Record<string, readonly string[]>> = {
  'codex-exec.responses.json': [
    'client_metadata',
    'include',
    'prompt_cache_key',
    'reasoning.summary',
    'store',
    'tools[8]',
  ],
  'openai-sdk.responses.json': [
    'client_metadata',
    'include',
    'metadata',
    'prompt_cache_key',
    'reasoning.summary',
    'safety_identifier',
    'service_tier',
    'store',
    'truncation',
    'x_future_field',
  ],
  'openai-sdk.chat.json': ['frequency_penalty', 'logprobs', 'n', 'x_tracing'],
  'ai-sdk.responses.json': ['metadata', 'prompt_cache_key', 'safety_identifier', 'store'],
  'ai-sdk.chat.json': [],
};

describe('fixtures replayed through both paths', () => {
  test('every fixture has its expectation', async () => {
    assert.deepEqual((await readdir(FIXTURES)).filter((f) => f.endsWith('.json')).sort(), Object.keys(REPLAY).sort());
  });

  for (const [name, dropped] of Object.entries(REPLAY)) {
    test(name, async () => {
      const raw = await readFile(join(FIXTURES, name), 'utf8');
      const chat = name.endsWith('.chat.json');
      const path = chat ? '/v1/chat/completions' : '/v1/responses';
      const post = (body: string) =>
        fetch(`${fx.app.url}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body,
        });
      const body = JSON.parse(raw);
      const complete = body.stream
        ? chat
          ? /data: \[DONE\]\n\n$/
          : /event: response\.completed\n/
        : /"(completed|stop)"/;

      const native = await post(raw);
      assert.equal(native.status, 200, await native.clone().text());
      assert.equal(native.headers.get(HEADER), null);
      assert.match(await native.text(), complete);
      assert.equal(last(both).raw, raw, 'forwarded byte for byte');

      const converted = await post(JSON.stringify({ ...body, model: chat ? 'responses-only' : 'chat-only' }));
      assert.equal(converted.status, 200, await converted.clone().text());
      assert.deepEqual(names(converted.headers.get(HEADER)).sort(), [...dropped].sort());
      assert.match(await converted.text(), complete);
      const upstream = last(chat ? responsesOnly : chatOnly).body;
      for (const f of dropped) if (!f.includes('.') && !f.includes('[')) assert.equal(f in upstream, false, f);
    });
  }
});
import { capturingLogger } from '../helpers/log-capture.ts';
