import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eventually } from '../helpers/eventually.ts';
import { call, type Answer } from '../helpers/http.ts';
import { relayFixture, type RelayFixture } from './setup.ts';

let fx: RelayFixture;
let key: string;
let narrowKey: string;
let disabledKey: string;

before(async () => {
  fx = await relayFixture();
  const both = await fx.fake();
  const chatOnly = await fx.fake({ protocols: ['chat'] });
  const picky = await fx.fake({ apiKey: 'upstream-secret' });
  await fx.channel({ baseUrl: both.base, models: ['gpt-native', 'emb-model'] });
  await fx.channel({ baseUrl: chatOnly.base, models: ['chat-only'], protocols: ['chat'] });
  await fx.channel({ baseUrl: picky.base, models: ['wrong-upstream-key'], apiKey: 'not-the-secret' });
  await fx.model('emb-model', [], 'embedding');
  key = (await fx.key()).key;
  narrowKey = (await fx.key(['chat-only'])).key;
  const disabled = await fx.key();
  disabledKey = disabled.key;
  await fx.app.db.none('UPDATE relay_keys SET disabled_at = now() WHERE id = $1', [disabled.id]);
});
after(() => fx.close());

/** Asserts OpenAI's error body and returns its error object. */
function openAiError(
  r: Answer,
  status: number,
  code: string,
): { message: string; type: string; param: string | null; code: string } {
  assert.equal(r.status, status, r.text);
  assert.deepEqual(Object.keys(r.body), ['error']);
  assert.deepEqual(Object.keys(r.body.error).sort(), ['code', 'message', 'param', 'type']);
  assert.equal(r.body.error.code, code);
  assert.equal(r.body.error.type, status >= 500 ? 'server_error' : 'invalid_request_error');
  return r.body.error;
}

const post = (path: string, body: unknown, bearer: string | null = key) =>
  call(fx.app.url, 'POST', path, { body, bearer: bearer ?? undefined });
const ask = { model: 'gpt-native', input: 'hi' };

test('401 invalid_api_key: missing, malformed, unknown, disabled', async () => {
  openAiError(await post('/v1/responses', ask, null), 401, 'invalid_api_key');
  openAiError(
    await call(fx.app.url, 'GET', '/v1/models', { headers: { authorization: 'Basic abc' } }),
    401,
    'invalid_api_key',
  );
  openAiError(await post('/v1/responses', ask, 'sk-short'), 401, 'invalid_api_key');
  const unknown = openAiError(await post('/v1/responses', ask, `sk-${'A'.repeat(43)}`), 401, 'invalid_api_key');
  assert.doesNotMatch(unknown.message, /A{20}/, 'the key is masked in the message');
  const disabled = openAiError(
    await post(
      '/v1/chat/completions',
      { model: 'gpt-native', messages: [{ role: 'user', content: 'x' }] },
      disabledKey,
    ),
    401,
    'invalid_api_key',
  );
  assert.match(disabled.message, /disabled/);
});

test('a model id PostgreSQL cannot store is 400, and the call is still metered (not a poisoned usage job)', async () => {
  for (const [model, id] of [
    ['gpt\u0000native', 'text-nul-model'],
    ['gpt\ud800', 'text-surrogate-model'],
  ] as const) {
    const r = await call(fx.app.url, 'POST', '/v1/responses', {
      body: { ...ask, model },
      bearer: key,
      headers: { 'x-request-id': id },
    });
    const e = openAiError(r, 400, 'invalid_request_error');
    assert.equal(e.param, 'model');
    const row = await eventually(
      () =>
        fx.app.db
          .oneOrNone('SELECT model, status FROM relay_usage WHERE request_id = $1', [id])
          .then((v) => v ?? undefined),
      60_000,
      `the metering row of ${id}`,
    );
    assert.deepEqual(row, { model: '', status: 400 });
  }
});

test('403 model_not_permitted for a model outside the key', async () => {
  const e = openAiError(await post('/v1/responses', ask, narrowKey), 403, 'model_not_permitted');
  assert.equal(e.param, 'model');
});

test('404 model_not_found for an unknown or wrongly-cased id, with a hint for the case', async () => {
  openAiError(await post('/v1/responses', { ...ask, model: 'gpt-unknown' }), 404, 'model_not_found');
  const cased = openAiError(await post('/v1/responses', { ...ask, model: 'GPT-Native' }), 404, 'model_not_found');
  assert.match(cased.message, /case-sensitive: did you mean 'gpt-native'/);
  openAiError(await call(fx.app.url, 'GET', '/v1/models/nope', { bearer: key }), 404, 'model_not_found');
});

test('404 unknown_endpoint, with a hint for a doubled /v1 or an endpoint in the base URL', async () => {
  const doubled = openAiError(await post('/v1/v1/responses', ask), 404, 'unknown_endpoint');
  assert.match(doubled.message, /repeats \/v1/);
  const inBase = openAiError(await post('/v1/responses/responses', ask), 404, 'unknown_endpoint');
  assert.match(inBase.message, /must not already contain the endpoint/);
  openAiError(await post('/v1/completions', ask), 404, 'unknown_endpoint');
  openAiError(await call(fx.app.url, 'GET', '/v1/v1/models', { bearer: key }), 404, 'unknown_endpoint');
});

test('400 invalid_reasoning_effort for a value the model does not accept', async () => {
  const e = openAiError(
    await post('/v1/responses', { ...ask, reasoning: { effort: 'ultra' } }),
    400,
    'invalid_reasoning_effort',
  );
  assert.equal(e.param, 'reasoning.effort');
  assert.match(e.message, /'low', 'medium', 'high'/);
  const chat = openAiError(
    await post('/v1/chat/completions', {
      model: 'chat-only',
      messages: [{ role: 'user', content: 'x' }],
      reasoning_effort: 'xhigh',
    }),
    400,
    'invalid_reasoning_effort',
  );
  assert.equal(chat.param, 'reasoning_effort');
});

test("400 unsupported_parameter for another protocol's effort field or what a chat channel cannot do", async () => {
  assert.equal(
    openAiError(await post('/v1/responses', { ...ask, reasoning_effort: 'low' }), 400, 'unsupported_parameter').param,
    'reasoning_effort',
  );
  assert.equal(
    openAiError(await post('/v1/responses', { ...ask, model_reasoning_effort: 'low' }), 400, 'unsupported_parameter')
      .param,
    'model_reasoning_effort',
  );
  assert.equal(
    openAiError(
      await post('/v1/chat/completions', {
        model: 'gpt-native',
        messages: [{ role: 'user', content: 'x' }],
        reasoning: { effort: 'low' },
      }),
      400,
      'unsupported_parameter',
    ).param,
    'reasoning',
  );
  assert.equal(
    openAiError(
      await post('/v1/responses', { model: 'chat-only', input: 'x', previous_response_id: 'resp_1' }),
      400,
      'unsupported_parameter',
    ).param,
    'previous_response_id',
  );
  assert.equal(
    openAiError(
      await post('/v1/responses', {
        model: 'chat-only',
        input: 'x',
        tools: [{ type: 'web_search' }],
        tool_choice: { type: 'web_search' },
      }),
      400,
      'unsupported_parameter',
    ).param,
    'tools[0].type',
  );
  assert.equal(
    openAiError(
      await post('/v1/responses', {
        model: 'chat-only',
        input: 'x',
        tools: [{ type: 'web_search' }],
        tool_choice: 'required',
      }),
      400,
      'unsupported_parameter',
    ).param,
    'tools[0].type',
  );
});

test('400 for bodies that break the protocol, never a 500', async () => {
  openAiError(
    await call(fx.app.url, 'POST', '/v1/responses', {
      raw: '{"model":',
      bearer: key,
      headers: { 'content-type': 'application/json' },
    }),
    400,
    'invalid_json',
  );
  assert.equal(
    openAiError(await post('/v1/chat/completions', { model: 'gpt-native' }), 400, 'invalid_request_error').param,
    'messages',
  );
  assert.equal(
    openAiError(
      await post('/v1/chat/completions', { model: 'gpt-native', messages: [{ content: 'x' }] }),
      400,
      'invalid_request_error',
    ).param,
    'messages[0].role',
  );
  assert.equal(openAiError(await post('/v1/responses', { input: 'x' }), 400, 'invalid_request_error').param, 'model');
  openAiError(await post('/v1/responses', [1, 2]), 400, 'invalid_request_error');
  openAiError(await post('/v1/responses', { ...ask, stream: 'yes' }), 400, 'invalid_request_error');
  openAiError(await post('/v1/responses', { model: 'emb-model', input: 'x' }), 400, 'invalid_request_error');
  openAiError(await post('/v1/embeddings', { model: 'chat-only', input: 'x' }), 400, 'invalid_request_error');
});

test('an upstream error is passed on with its status and a message that says where it came from', async () => {
  const e = openAiError(
    await post('/v1/responses', { model: 'wrong-upstream-key', input: 'x' }),
    401,
    'upstream_error',
  );
  assert.match(e.message, /upstream provider rejected the request \(401\): Incorrect API key provided/);
});
