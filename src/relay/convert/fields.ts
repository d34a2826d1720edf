import { HttpError } from '../../errors/http-error.ts';

type Json = Record<string, unknown>;

/** The two ways a request is converted: the client's protocol, then the channel's. */
export type Direction = 'responses-to-chat' | 'chat-to-responses';

/**
 * What becomes of one request field when the request is converted:
 * - `map`: the converter carries it into the other protocol (same name or an equivalent);
 * - `drop`: it only describes or routes the request (metadata, storage, caching, safety
 *   identifiers, extra detail in the answer that the target cannot produce), so the answer
 *   is the same without it; it is left out and named in the answer's dropped-fields header;
 * - `refuse`: it would change the answer and the target cannot express it: 400
 *   unsupported_parameter naming it, unless it holds `neutral` (the value that changes
 *   nothing, e.g. `n: 1`), in which case it is dropped.
 * A field in no table is dropped, like `drop` (see `ruleOf`).
 */
type Rule = 'map' | 'drop' | { refuse: string; neutral?: (value: unknown) => boolean };

const is = (neutral: unknown) => (value: unknown) => value === neutral;
const never = { refuse: 'has no chat-completions equivalent' };

const RESPONSES_TO_CHAT: Readonly<Record<string, Rule>> = {
  model: 'map',
  input: 'map',
  instructions: 'map',
  stream: 'map',
  temperature: 'map',
  top_p: 'map',
  parallel_tool_calls: 'map',
  user: 'map',
  reasoning: 'map',
  tools: 'map',
  tool_choice: 'map',
  max_output_tokens: 'map',
  text: 'map',
  store: 'drop',
  metadata: 'drop',
  client_metadata: 'drop',
  prompt_cache_key: 'drop',
  prompt_cache_retention: 'drop',
  safety_identifier: 'drop',
  service_tier: 'drop',
  include: 'drop',
  stream_options: 'drop',
  truncation: 'drop',
  top_logprobs: 'drop',
  max_tool_calls: 'drop',
  // State kept by OpenAI, or work it does on its side: a chat provider would answer another question.
  previous_response_id: never,
  conversation: never,
  prompt: never,
  background: {
    refuse: 'has no chat-completions equivalent (a chat provider answers while the request is open)',
    neutral: is(false),
  },
};

const notInResponses = { refuse: 'has no Responses equivalent' };

const CHAT_TO_RESPONSES: Readonly<Record<string, Rule>> = {
  model: 'map',
  messages: 'map',
  stream: 'map',
  temperature: 'map',
  top_p: 'map',
  parallel_tool_calls: 'map',
  user: 'map',
  metadata: 'map',
  service_tier: 'map',
  prompt_cache_key: 'map',
  prompt_cache_retention: 'map',
  safety_identifier: 'map',
  reasoning_effort: 'map',
  max_tokens: 'map',
  max_completion_tokens: 'map',
  tools: 'map',
  tool_choice: 'map',
  response_format: 'map',
  verbosity: 'map',
  store: 'map',
  stream_options: 'map',
  n: { refuse: 'has no Responses equivalent (one answer per call)', neutral: is(1) },
  frequency_penalty: { refuse: 'has no Responses equivalent', neutral: is(0) },
  presence_penalty: { refuse: 'has no Responses equivalent', neutral: is(0) },
  logprobs: { refuse: 'has no Responses equivalent', neutral: is(false) },
  top_logprobs: { refuse: 'has no Responses equivalent', neutral: is(0) },
  modalities: {
    refuse: 'has no Responses equivalent',
    neutral: (v) => Array.isArray(v) && v.length === 1 && v[0] === 'text',
  },
  stop: notInResponses,
  seed: notInResponses,
  logit_bias: notInResponses,
  audio: notInResponses,
  prediction: notInResponses,
  functions: notInResponses,
  function_call: notInResponses,
  web_search_options: notInResponses,
};

const TABLES: Readonly<Record<Direction, Readonly<Record<string, Rule>>>> = {
  'responses-to-chat': RESPONSES_TO_CHAT,
  'chat-to-responses': CHAT_TO_RESPONSES,
};

const TARGET: Readonly<Record<Direction, string>> = {
  'responses-to-chat': 'chat-completions',
  'chat-to-responses': 'Responses',
};

/**
 * Fields nobody listed are dropped and named, not refused. Clients add fields every month
 * (Codex's `client_metadata`, SDKs' tracing ids), nearly always to describe the request;
 * OpenAI adds answer-changing features as tools, item types and parameters that are listed
 * above once known. Refusing the unknown would break every client on its next release; the
 * header and the log say exactly what was left out, so nothing is lost silently.
 */
function ruleOf(direction: Direction, field: string): Rule {
  return Object.hasOwn(TABLES[direction], field) ? TABLES[direction][field]! : 'drop';
}

/** 400 for a field the target protocol cannot express, naming the protocol the model is served through. */
export function unsupported(direction: Direction, param: string, why: string): HttpError {
  return new HttpError('unsupported_parameter', {
    detail: `Unsupported parameter: '${param}' ${why} (this model is served through a ${TARGET[direction]} provider).`,
    param,
  });
}

/**
 * The fields of one request as the rule above sorts them. Throws the refusal of the first
 * field that would change the answer; otherwise collects what the converter leaves out in
 * `dropped`, in the order found, for the header and the log. A field holding null counts as
 * absent, as OpenAI reads it.
 */
export class FieldSort {
  readonly dropped: string[] = [];

  constructor(
    readonly direction: Direction,
    body: Json,
  ) {
    for (const [field, value] of Object.entries(body)) {
      if (value === null || value === undefined) continue;
      const rule = ruleOf(direction, field);
      if (rule === 'map') continue;
      if (rule !== 'drop' && !rule.neutral?.(value)) throw unsupported(direction, field, rule.refuse);
      this.dropped.push(field);
    }
  }

  /** A part of a mapped field that the converter leaves out (e.g. `reasoning.summary`). */
  drop(param: string): void {
    this.dropped.push(param);
  }

  refuse(param: string, why: string): HttpError {
    return unsupported(this.direction, param, why);
  }
}

/** Parts of `reasoning` besides the effort: summaries of reasoning, which a chat provider does not return. */
export const REASONING_DROPPED = ['summary', 'generate_summary'] as const;

/**
 * A Responses tool a chat provider cannot run (a hosted tool such as `web_search`, or a
 * kind chat has no place for) is only an offer: the model may always answer without it.
 * So it is dropped while the model is free to pass it by, and refused when `tool_choice`
 * forces it: by naming its type, or by `required` with no function tool left to call.
 */
export function droppableTool(tool: Json, toolChoice: unknown, functionsLeft: number): boolean {
  if (toolChoice === 'required') return functionsLeft > 0;
  if (typeof toolChoice === 'object' && toolChoice !== null) return (toolChoice as Json).type !== tool.type;
  return true;
}

/** Longest `X-Radar-Dropped-Fields` value; past it the list ends in `...` (the log has it whole). */
export const DROPPED_HEADER_MAX = 1024;

/**
 * The dropped-fields header value: names joined by `, `, each percent-encoded where a header
 * could not carry it (field names are any JSON string, header values ASCII), cut at a name
 * boundary.
 */
export function droppedHeader(dropped: readonly string[]): string {
  let out = '';
  for (const name of dropped) {
    const safe = /^[\w.[\]-]+$/.test(name) ? name : encodeURIComponent(name);
    const next = out ? `${out}, ${safe}` : safe;
    if (next.length > DROPPED_HEADER_MAX - 5) return out ? `${out}, ...` : '...';
    out = next;
  }
  return out;
}
