import { randomBytes } from 'node:crypto';
import type { ResponsesBody } from '../request.ts';
import type { Usage } from '../usage.ts';

type Json = Record<string, unknown>;

export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(16).toString('hex')}`;
}

/** What a converted Response echoes from its request. */
export interface ResponseSeed {
  id: string;
  createdAt: number;
  model: string;
  effort: string | null;
  request: ResponsesBody;
}

export function seedFor(request: ResponsesBody, effort: string | null): ResponseSeed {
  return { id: newId('resp'), createdAt: Math.floor(Date.now() / 1000), model: request.model, effort, request };
}

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

/** A Responses-protocol `response` object, as OpenAI renders it. */
export function responseObject(seed: ResponseSeed, status: ResponseStatus, output: readonly Json[], usage: Usage | null, extra: { error?: Json; incompleteReason?: string } = {}): Json {
  const r = seed.request;
  return {
    id: seed.id,
    object: 'response',
    created_at: seed.createdAt,
    status,
    background: false,
    error: extra.error ?? null,
    incomplete_details: extra.incompleteReason ? { reason: extra.incompleteReason } : null,
    instructions: r.instructions ?? null,
    max_output_tokens: r.max_output_tokens ?? null,
    model: seed.model,
    output,
    parallel_tool_calls: r.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: { effort: seed.effort, summary: null },
    store: false,
    temperature: r.temperature ?? 1,
    text: r.text ?? { format: { type: 'text' } },
    tool_choice: r.tool_choice ?? 'auto',
    tools: r.tools ?? [],
    top_p: r.top_p ?? 1,
    truncation: 'disabled',
    usage: usage ? responsesUsage(usage) : null,
    user: r.user ?? null,
    metadata: r.metadata ?? {},
  };
}

/** Usage in Responses terms, details always present: Codex-style clients read them unguarded. */
export function responsesUsage(u: Usage): Json {
  const input = u.input_tokens ?? 0;
  const output = u.output_tokens ?? 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: u.cached_tokens ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: u.reasoning_tokens ?? 0 },
    total_tokens: input + output,
  };
}

export function messageItem(id: string, text: string, status: 'in_progress' | 'completed', refusal?: string): Json {
  const content: Json[] = [];
  if (text || !refusal) content.push(outputTextPart(text));
  if (refusal) content.push({ type: 'refusal', refusal });
  return { id, type: 'message', status, role: 'assistant', content: status === 'in_progress' ? [] : content };
}

export function outputTextPart(text: string): Json {
  return { type: 'output_text', text, annotations: [], logprobs: [] };
}

export function functionCallItem(id: string, callId: string, name: string, args: string, status: 'in_progress' | 'completed'): Json {
  return { id, type: 'function_call', status, call_id: callId, name, arguments: args };
}

/** How a chat `finish_reason` ends a Response. */
export function ending(finishReason: string | null | undefined): { status: 'completed' | 'incomplete'; incompleteReason?: string } {
  if (finishReason === 'length') return { status: 'incomplete', incompleteReason: 'max_output_tokens' };
  if (finishReason === 'content_filter') return { status: 'incomplete', incompleteReason: 'content_filter' };
  return { status: 'completed' };
}

interface ChatCompletion {
  choices?: { message?: { content?: string | null; refusal?: string | null; tool_calls?: { id: string; function: { name: string; arguments: string } }[] }; finish_reason?: string | null }[];
}

/** A non-streamed chat completion as a Response. */
export function chatToResponse(seed: ResponseSeed, completion: ChatCompletion, usage: Usage): Json {
  const choice = completion.choices?.[0];
  const message = choice?.message ?? {};
  const output: Json[] = [];
  if (message.content || message.refusal || !message.tool_calls?.length) {
    output.push(messageItem(newId('msg'), message.content ?? '', 'completed', message.refusal ?? undefined));
  }
  for (const call of message.tool_calls ?? []) {
    output.push(functionCallItem(newId('fc'), call.id, call.function.name, call.function.arguments, 'completed'));
  }
  const end = ending(choice?.finish_reason);
  return responseObject(seed, end.status, output, usage, { incompleteReason: end.incompleteReason });
}
