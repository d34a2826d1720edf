import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the fake says to a prompt: an answer (with the URLs it annotates), or an HTTP error. */
export type Scripted = { text: string; annotations?: string[] } | { status: number };

/**
 * A fake model provider for GEO tests, speaking OpenAI's Responses and chat-completions
 * protocols (non-streamed, which is how GEO asks), with answers scripted per (model, prompt).
 * Responses answers carry `url_citation` annotations as OpenAI's web search produces them.
 */
export interface FakeModel {
  base: string;
  /** Requests received, by path. */
  received: { path: string; model: string; prompt: string }[];
  /** The most requests it ever had in flight at once. */
  maxInflight: number;
  close(): Promise<void>;
}

export async function startFakeModel(
  script: (model: string, prompt: string) => Scripted,
  opts: { delayMs?: number } = {},
): Promise<FakeModel> {
  let inflight = 0;
  const fake: FakeModel = { base: '', received: [], maxInflight: 0, close: async () => {} };
  const server = http.createServer(async (req, res) => {
    inflight++;
    fake.maxInflight = Math.max(fake.maxInflight, inflight);
    try {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const chat = req.url === '/v1/chat/completions';
      const prompt: string = chat
        ? [...body.messages].reverse().find((m: { role: string }) => m.role === 'user').content
        : body.input;
      fake.received.push({ path: req.url ?? '', model: body.model, prompt });
      if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
      const answer = script(body.model, prompt);
      res.setHeader('content-type', 'application/json');
      if ('status' in answer) {
        res.writeHead(answer.status).end(
          JSON.stringify({
            error: { message: 'the fake model is failing on purpose', type: 'server_error', param: null, code: null },
          }),
        );
        return;
      }
      const usage = { input_tokens: 7, output_tokens: 11, total_tokens: 18 };
      if (chat) {
        res.end(
          JSON.stringify({
            id: 'chatcmpl-geo',
            object: 'chat.completion',
            created: 0,
            model: body.model,
            choices: [
              {
                index: 0,
                message: { role: 'assistant', content: answer.text, refusal: null },
                finish_reason: 'stop',
                logprobs: null,
              },
            ],
            usage: { prompt_tokens: 7, completion_tokens: 11, total_tokens: 18 },
          }),
        );
        return;
      }
      const annotations = (answer.annotations ?? []).map((url) => ({
        type: 'url_citation',
        url,
        title: url,
        start_index: 0,
        end_index: 0,
      }));
      res.end(
        JSON.stringify({
          id: 'resp_geo',
          object: 'response',
          created_at: 0,
          status: 'completed',
          model: body.model,
          error: null,
          output: [
            { id: 'rs_1', type: 'reasoning', summary: [] },
            {
              id: 'msg_1',
              type: 'message',
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: answer.text, annotations }],
            },
          ],
          usage,
        }),
      );
    } finally {
      inflight--;
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  fake.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  fake.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  };
  return fake;
}
