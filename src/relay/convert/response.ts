import { randomBytes } from 'node:crypto';
import { HttpError } from '../../errors/http-error.ts';
import type { ChatBody, ResponsesBody } from '../request.ts';
import type { Usage } from '../usage.ts';
import { namespacedNames } from './request.ts';

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
  /** Chat names of namespaced functions, to name their calls back (see `chatFunctionName`). */
  namespaced: ReadonlyMap<string, { namespace: string; name: string }>;
}

export function seedFor(request: ResponsesBody, effort: string | null): ResponseSeed {
  return {
    id: newId('resp'),
    createdAt: Math.floor(Date.now() / 1000),
    model: request.model,
    effort,
    request,
    namespaced: namespacedNames(request.tools),
  };
}

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

/** A Responses-protocol `response` object, as OpenAI renders it. */
export function responseObject(
  seed: ResponseSeed,
  status: ResponseStatus,
  output: readonly Json[],
  usage: Usage | null,
  extra: { error?: Json; incompleteReason?: string } = {},
): Json {
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

/** The same usage in chat-completions terms, details likewise always present. */
export function chatUsage(u: Usage): Json {
  const { input_tokens, input_tokens_details, output_tokens, output_tokens_details, total_tokens } = responsesUsage(u);
  return {
    prompt_tokens: input_tokens,
    completion_tokens: output_tokens,
    total_tokens,
    prompt_tokens_details: input_tokens_details,
    completion_tokens_details: output_tokens_details,
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

/** A function_call item for a chat tool call named `chatName`, namespaced again when it was. */
export function functionCallItem(
  seed: ResponseSeed,
  id: string,
  callId: string,
  chatName: string,
  args: string,
  status: 'in_progress' | 'completed',
): Json {
  const namespaced = seed.namespaced.get(chatName);
  if (namespaced)
    return {
      id,
      type: 'function_call',
      status,
      call_id: callId,
      namespace: namespaced.namespace,
      name: namespaced.name,
      arguments: args,
    };
  return { id, type: 'function_call', status, call_id: callId, name: chatName, arguments: args };
}

/** Chat finish reasons that leave a Response incomplete, with the Response's reason; the one table for both directions. */
const INCOMPLETE_REASON: Readonly<Record<string, string>> = {
  length: 'max_output_tokens',
  content_filter: 'content_filter',
};

/** How a chat `finish_reason` ends a Response. */
export function ending(finishReason: string | null | undefined): {
  status: 'completed' | 'incomplete';
  incompleteReason?: string;
} {
  const incompleteReason = finishReason ? INCOMPLETE_REASON[finishReason] : undefined;
  return incompleteReason ? { status: 'incomplete', incompleteReason } : { status: 'completed' };
}

/** The chat `finish_reason` of a Response that ended with `status`; an unknown incomplete reason reads as `length`. */
export function finishReason(
  status: string | undefined,
  incompleteReason: string | null | undefined,
  toolCalls: boolean,
): string {
  if (status === 'incomplete')
    return Object.keys(INCOMPLETE_REASON).find((f) => INCOMPLETE_REASON[f] === incompleteReason) ?? 'length';
  return toolCalls ? 'tool_calls' : 'stop';
}

interface ChatCompletion {
  choices?: {
    message?: {
      content?: string | null;
      refusal?: string | null;
      tool_calls?: { id: string; function: { name: string; arguments: string } }[];
    };
    finish_reason?: string | null;
  }[];
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
    output.push(functionCallItem(seed, newId('fc'), call.id, call.function.name, call.function.arguments, 'completed'));
  }
  const end = ending(choice?.finish_reason);
  return responseObject(seed, end.status, output, usage, { incompleteReason: end.incompleteReason });
}

/** What a converted chat completion carries besides the upstream's answer. */
export interface ChatSeed {
  id: string;
  created: number;
  model: string;
  /** The client asked for `stream_options.include_usage`: a streamed answer ends with a usage chunk. */
  includeUsage: boolean;
}

export function chatSeedFor(request: ChatBody): ChatSeed {
  const includeUsage =
    (request.stream_options as { include_usage?: unknown } | null | undefined)?.include_usage === true;
  return {
    id: `chatcmpl-${randomBytes(16).toString('hex')}`,
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    includeUsage,
  };
}

export interface ResponseOutputItem {
  type?: string;
  content?: { type?: string; text?: string; refusal?: string }[];
  call_id?: string;
  name?: string;
  arguments?: string;
}

export interface ResponseBody {
  status?: string;
  error?: { code?: string; message?: string } | null;
  incomplete_details?: { reason?: string } | null;
  output?: ResponseOutputItem[];
}

/** A chat tool call from a Responses function_call item. */
export function chatToolCall(item: ResponseOutputItem): Json {
  return { id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments ?? '' } };
}

/**
 * A non-streamed Response as a chat completion: message text and refusals joined, function
 * calls as tool_calls, reasoning items left out (chat has no place for them). A failed
 * Response is an upstream error, not an empty answer.
 */
export function responseToChat(seed: ChatSeed, response: ResponseBody, usage: Usage): Json {
  if (response.status === 'failed') {
    throw new HttpError('upstream_error', {
      detail: `The upstream provider failed to answer: ${response.error?.message ?? 'no reason given'}.`,
    });
  }
  let text = '';
  let refusal = '';
  const toolCalls: Json[] = [];
  for (const item of response.output ?? []) {
    if (item.type === 'function_call') toolCalls.push(chatToolCall(item));
    if (item.type !== 'message') continue;
    for (const part of item.content ?? []) {
      if (part.type === 'output_text') text += part.text ?? '';
      else if (part.type === 'refusal') refusal += part.refusal ?? '';
    }
  }
  const message: Json = {
    role: 'assistant',
    content: text || (toolCalls.length || refusal ? null : ''),
    refusal: refusal || null,
    annotations: [],
  };
  if (toolCalls.length) message.tool_calls = toolCalls;
  const finish = finishReason(response.status, response.incomplete_details?.reason, toolCalls.length > 0);
  return {
    id: seed.id,
    object: 'chat.completion',
    created: seed.created,
    model: seed.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
    usage: chatUsage(usage),
  };
}
