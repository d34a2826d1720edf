import { EventEmitter, once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/**
 * A fake model provider speaking OpenAI's chat-completions, Responses and embeddings
 * protocols the way real providers do: JSON bodies, SSE streams (`data: …` frames ending
 * with `data: [DONE]` for chat, `event: <type>` + `data: …` for Responses), usage with
 * cached and reasoning token details, tool calls with streamed arguments, TCP backpressure.
 * It records every request it receives. This is the only fake in Radar's tests.
 */
export interface FakeOptions {
  /** Protocols served; others answer 404 like a provider without that endpoint. @defaultValue all */
  protocols?: ReadonlyArray<'chat' | 'responses' | 'embeddings'>;
  /** Bearer token required, when set. */
  apiKey?: string;
  /** Text deltas per answer. @defaultValue 5 */
  chunks?: number;
  /** Extra characters per delta, to make streams heavy. @defaultValue 0 */
  padBytes?: number;
  /** Pause between stream frames. @defaultValue 0 */
  chunkDelayMs?: number;
  /** Answer every call with this status and an OpenAI error body. */
  failStatus?: number;
  /** Destroy the connection after this many stream frames. */
  breakAfterFrames?: number;
}

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: any;
  /** The token counts the fake reported for this request (in its protocol's names), once answered. */
  usage?: Record<string, any>;
}

export interface StreamStats {
  path: string;
  /** Bytes the provider's socket accepted so far. */
  bytes: number;
  finished: boolean;
  /** The connection closed before the stream finished. */
  cutOff: boolean;
}

export interface FakeUpstream {
  url: string;
  /** `url` + `/v1`, what a channel's base URL is. */
  base: string;
  options: FakeOptions;
  received: Received[];
  streams: StreamStats[];
  /** 'request' (Received), 'stream-end' (StreamStats). */
  events: EventEmitter;
  close(): Promise<void>;
}

const REASONING: Record<string, number> = { none: 0, minimal: 0, low: 4, medium: 8, high: 16, xhigh: 32 };
export const CACHED_TOKENS = 2;

/** The deltas an answer is made of; tests compute the expected text with this too. */
export function deltas(n: number, pad = 0): string[] {
  return Array.from({ length: n }, (_, i) => `${i === 0 ? 'Hello' : ` t${i}`}${'x'.repeat(pad)}`);
}

function words(v: unknown): number {
  if (typeof v === 'string') return v.split(/\s+/).filter(Boolean).length;
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + words(x), 0);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return words(o.content ?? o.text ?? o.output ?? o.arguments ?? '');
  }
  return 0;
}

function lastUserText(items: any[]): string {
  const u = [...items].reverse().find((m) => m.role === 'user');
  if (!u) return '';
  return typeof u.content === 'string' ? u.content : (u.content ?? []).map((p: any) => p.text ?? '').join('');
}

// Shared by every fake of a process, so no two providers answer with the same response id.
let seq = 0;

export async function startFakeUpstream(options: FakeOptions = {}, port = 0): Promise<FakeUpstream> {
  const received: Received[] = [];
  const streams: StreamStats[] = [];
  const events = new EventEmitter();

  const server = http.createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const raw = Buffer.concat(parts).toString('utf8');
    let body: any = null;
    try {
      body = JSON.parse(raw);
    } catch {
      // recorded as null; answered 400 below
    }
    const path = req.url ?? '';
    const rec: Received = { path, headers: req.headers, raw, body };
    received.push(rec);
    events.emit('request', rec);

    const error = (status: number, message: string, code: string | null = null) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', param: null, code },
        }),
      );
    };
    const proto =
      path === '/v1/chat/completions'
        ? 'chat'
        : path === '/v1/responses'
          ? 'responses'
          : path === '/v1/embeddings'
            ? 'embeddings'
            : null;
    if (
      req.method !== 'POST' ||
      !proto ||
      !(options.protocols ?? ['chat', 'responses', 'embeddings']).includes(proto)
    ) {
      return error(404, `Invalid URL (${req.method} ${path})`);
    }
    if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`)
      return error(401, 'Incorrect API key provided', 'invalid_api_key');
    if (options.failStatus) return error(options.failStatus, 'The fake provider is failing on purpose', 'fake_failure');
    if (!body || typeof body !== 'object' || typeof body.model !== 'string')
      return error(400, 'We could not parse the JSON body of your request.');

    const id = `fake${++seq}`;
    const created = Math.floor(Date.now() / 1000);
    if (proto === 'embeddings') {
      const inputs: unknown[] = Array.isArray(body.input) ? body.input : [body.input];
      rec.usage = { prompt_tokens: words(inputs), total_tokens: words(inputs) };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          object: 'list',
          data: inputs.map((x, index) => {
            const vector = [words(x), index, 0.5];
            // OpenAI sends base64 of little-endian float32 when asked, as the SDK asks by default.
            const embedding =
              body.encoding_format === 'base64'
                ? Buffer.from(new Float32Array(vector).buffer).toString('base64')
                : vector;
            return { object: 'embedding', index, embedding };
          }),
          model: body.model,
          usage: rec.usage,
        }),
      );
      return;
    }

    const isChat = proto === 'chat';
    const effort: string | undefined = isChat ? body.reasoning_effort : body.reasoning?.effort;
    const reasoning = effort === undefined ? REASONING.medium! : (REASONING[effort] ?? 0);
    const messages: any[] = isChat
      ? body.messages
      : typeof body.input === 'string'
        ? [{ role: 'user', content: body.input }]
        : body.input;
    const inputTokens = words(messages) + words(body.instructions ?? '');
    const limit: number | undefined = isChat ? (body.max_tokens ?? body.max_completion_tokens) : body.max_output_tokens;
    const all = deltas(options.chunks ?? 5, options.padBytes ?? 0);
    const text = limit !== undefined && limit < all.length ? all.slice(0, limit) : all;
    const truncated = text.length < all.length;
    const wantsTool = Array.isArray(body.tools) && body.tools.length > 0 && /weather/i.test(lastUserText(messages));
    const tool = wantsTool
      ? {
          callId: `call_${id}`,
          name: isChat ? body.tools[0].function.name : body.tools[0].name,
          args: ['{"city":', '"Paris"', '}'],
        }
      : null;
    const outTokens = (tool ? 3 : text.length) + reasoning;
    const chatUsage = {
      prompt_tokens: inputTokens,
      completion_tokens: outTokens,
      total_tokens: inputTokens + outTokens,
      prompt_tokens_details: { cached_tokens: CACHED_TOKENS, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: reasoning,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    };
    const respUsage = {
      input_tokens: inputTokens,
      input_tokens_details: { cached_tokens: CACHED_TOKENS },
      output_tokens: outTokens,
      output_tokens_details: { reasoning_tokens: reasoning },
      total_tokens: inputTokens + outTokens,
    };
    const finish = tool ? 'tool_calls' : truncated ? 'length' : 'stop';
    rec.usage = isChat ? chatUsage : respUsage;

    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (isChat) {
        const message: any = { role: 'assistant', content: tool ? null : text.join(''), refusal: null };
        if (tool)
          message.tool_calls = [
            { id: tool.callId, type: 'function', function: { name: tool.name, arguments: tool.args.join('') } },
          ];
        res.end(
          JSON.stringify({
            id: `chatcmpl-${id}`,
            object: 'chat.completion',
            created,
            model: body.model,
            choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
            usage: chatUsage,
          }),
        );
      } else {
        res.end(
          JSON.stringify(
            responseObject(
              id,
              created,
              body,
              truncated ? 'incomplete' : 'completed',
              outputItems(id, text.join(''), tool),
              respUsage,
            ),
          ),
        );
      }
      return;
    }

    const stats: StreamStats = { path, bytes: 0, finished: false, cutOff: false };
    streams.push(stats);
    res.on('close', () => {
      stats.cutOff = !stats.finished;
      events.emit('stream-end', stats);
    });
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    let frames = 0;
    // Thrown by send() once the connection is gone, so the producer stops producing.
    const GONE = new Error('connection gone');
    const send = async (frame: string) => {
      if (res.destroyed) throw GONE;
      if (options.breakAfterFrames !== undefined && frames >= options.breakAfterFrames) {
        // Let the frames already written leave (node uncorks on the next tick), then drop.
        await new Promise((r) => setImmediate(r));
        res.destroy();
        throw GONE;
      }
      frames++;
      if (options.chunkDelayMs) await new Promise((r) => setTimeout(r, options.chunkDelayMs));
      const ok = res.write(frame);
      stats.bytes += Buffer.byteLength(frame);
      // A real provider's server stops producing when the socket is full.
      if (!ok && !res.destroyed) {
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.on('drain', done);
          res.on('close', done);
        });
      }
    };
    const finishStream = () => {
      if (res.destroyed) return;
      stats.finished = true;
      res.end();
    };

    try {
      await produce();
    } catch (err) {
      if (err !== GONE) throw err;
    }
    return;

    async function produce() {
      if (isChat) {
        // Asked for usage, OpenAI adds `"usage":null` to every chunk before the usage chunk.
        const usageNull = body.stream_options?.include_usage ? { usage: null } : {};
        const chunk = (delta: object, finishReason: string | null = null) =>
          `data: ${JSON.stringify({ id: `chatcmpl-${id}`, object: 'chat.completion.chunk', created, model: body.model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }], ...usageNull })}\n\n`;
        await send(chunk({ role: 'assistant', content: '' }));
        if (tool) {
          await send(
            chunk({
              tool_calls: [
                { index: 0, id: tool.callId, type: 'function', function: { name: tool.name, arguments: '' } },
              ],
            }),
          );
          for (const a of tool.args) await send(chunk({ tool_calls: [{ index: 0, function: { arguments: a } }] }));
        } else {
          for (const d of text) await send(chunk({ content: d }));
        }
        await send(chunk({}, finish));
        if (body.stream_options?.include_usage) {
          await send(
            `data: ${JSON.stringify({ id: `chatcmpl-${id}`, object: 'chat.completion.chunk', created, model: body.model, choices: [], usage: chatUsage })}\n\n`,
          );
        }
        await send('data: [DONE]\n\n');
        return finishStream();
      }

      let n = 0;
      const ev = (type: string, payload: object) =>
        send(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: n++, ...payload })}\n\n`);
      const start = responseObject(id, created, body, 'in_progress', [], null);
      await ev('response.created', { response: start });
      await ev('response.in_progress', { response: start });
      const items = outputItems(id, text.join(''), tool);
      if (tool) {
        const item = items[0];
        await ev('response.output_item.added', {
          output_index: 0,
          item: { ...item, arguments: '', status: 'in_progress' },
        });
        for (const a of tool.args)
          await ev('response.function_call_arguments.delta', { item_id: item.id, output_index: 0, delta: a });
        await ev('response.function_call_arguments.done', {
          item_id: item.id,
          output_index: 0,
          arguments: item.arguments,
        });
        await ev('response.output_item.done', { output_index: 0, item });
      } else {
        const item = items[0];
        const ids = { item_id: item.id, output_index: 0, content_index: 0 };
        await ev('response.output_item.added', {
          output_index: 0,
          item: { ...item, status: 'in_progress', content: [] },
        });
        await ev('response.content_part.added', {
          ...ids,
          part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
        });
        for (const d of text) await ev('response.output_text.delta', { ...ids, delta: d, logprobs: [] });
        await ev('response.output_text.done', { ...ids, text: text.join(''), logprobs: [] });
        await ev('response.content_part.done', { ...ids, part: item.content[0] });
        await ev('response.output_item.done', { output_index: 0, item });
      }
      const status = truncated ? 'incomplete' : 'completed';
      await ev(`response.${status}`, { response: responseObject(id, created, body, status, items, respUsage) });
      finishStream();
    }
  });

  server.keepAliveTimeout = 60_000;
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    base: `${url}/v1`,
    options,
    received,
    streams,
    events,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

function outputItems(id: string, text: string, tool: { callId: string; name: string; args: string[] } | null): any[] {
  if (tool)
    return [
      {
        id: `fc_${id}`,
        type: 'function_call',
        status: 'completed',
        call_id: tool.callId,
        name: tool.name,
        arguments: tool.args.join(''),
      },
    ];
  return [
    {
      id: `msg_${id}`,
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
    },
  ];
}

function responseObject(id: string, created: number, body: any, status: string, output: any[], usage: object | null) {
  return {
    id: `resp_${id}`,
    object: 'response',
    created_at: created,
    status,
    error: null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: body.model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: body.reasoning?.effort ?? null, summary: null },
    store: false,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: body.tools ?? [],
    top_p: 1,
    truncation: 'disabled',
    usage,
    user: null,
    metadata: {},
  };
}

// `node --import tsx test/relay/fake-upstream.ts --port 0 --chunks 200 [--pad B] [--delay MS]` (the benchmark runs it
// in its own process so the provider does not compete with the load generator for a core).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '0' },
      chunks: { type: 'string', default: '5' },
      pad: { type: 'string', default: '0' },
      delay: { type: 'string', default: '0' },
    },
  });
  const fake = await startFakeUpstream(
    { chunks: Number(values.chunks), padBytes: Number(values.pad), chunkDelayMs: Number(values.delay) },
    Number(values.port),
  );
  process.stdout.write(`${JSON.stringify({ url: fake.url })}\n`);
}
