import { HttpError } from '../../errors/http-error.ts';
import type { ChatBody, ResponsesBody } from '../request.ts';
import { droppableTool, FieldSort, REASONING_DROPPED, unsupported as refusal } from './fields.ts';

type Json = Record<string, unknown>;
type ChatMessage = Json & { role: string };

/** A converted request body and the names of what was left out of it (see fields.ts). */
export interface ConvertedRequest {
  body: Json;
  dropped: readonly string[];
}

/** Responses fields with a chat-completions equivalent of the same name and meaning. */
const SAME_NAME = ['model', 'temperature', 'top_p', 'parallel_tool_calls', 'user', 'stream'] as const;

const unsupported = (param: string, why: string): HttpError => refusal('responses-to-chat', param, why);

/**
 * A Responses request as a chat-completions request, for a channel that speaks only chat.
 * Which fields are carried, left out or refused is decided in fields.ts; a field that would
 * change the answer and cannot be expressed is refused with 400 unsupported_parameter, so a
 * client never gets an answer to a different question than it asked.
 */
export function responsesToChat(body: ResponsesBody, effort: string | null): ConvertedRequest {
  const fields = new FieldSort('responses-to-chat', body);
  const chat: Json = {};
  for (const f of SAME_NAME) if (body[f] !== undefined && body[f] !== null) chat[f] = body[f];
  const messages: ChatMessage[] = [];
  if (typeof body.instructions === 'string' && body.instructions)
    messages.push({ role: 'system', content: body.instructions });
  if (typeof body.input === 'string') messages.push({ role: 'user', content: body.input });
  else
    body.input.forEach((item, i) => {
      appendItem(messages, item, `input[${i}]`);
    });
  chat.messages = messages;
  if (effort !== null) chat.reasoning_effort = effort;
  const reasoning = body.reasoning as Json | null | undefined;
  for (const part of REASONING_DROPPED)
    if (reasoning?.[part] !== undefined && reasoning[part] !== null) fields.drop(`reasoning.${part}`);
  if (typeof body.max_output_tokens === 'number') chat.max_tokens = body.max_output_tokens;
  const tools = chatTools(body, fields);
  if (tools.length) chat.tools = tools;
  if (body.tool_choice !== undefined && body.tool_choice !== null) chat.tool_choice = chatToolChoice(body.tool_choice);
  const text = body.text as { format?: Json; verbosity?: unknown } | null | undefined;
  if (text?.format && text.format.type !== 'text') chat.response_format = chatResponseFormat(text.format);
  if (typeof text?.verbosity === 'string') chat.verbosity = text.verbosity;
  // Without this a chat provider sends no usage in streams, and response.completed must carry it.
  if (body.stream) chat.stream_options = { include_usage: true };
  return { body: chat, dropped: fields.dropped };
}

/**
 * Chat has no tool namespaces: a function in a Responses `namespace` tool is offered to the
 * chat model as `<namespace>__<name>`, and a call of it is named back (`namespacedNames`).
 */
export function chatFunctionName(namespace: unknown, name: unknown): string {
  return typeof namespace === 'string' && namespace ? `${namespace}__${String(name)}` : String(name);
}

/** The chat names of a request's namespaced functions, and what they stand for. */
export function namespacedNames(tools: unknown): Map<string, { namespace: string; name: string }> {
  const names = new Map<string, { namespace: string; name: string }>();
  if (!Array.isArray(tools)) return names;
  for (const tool of tools as Json[]) {
    if (tool.type !== 'namespace' || !Array.isArray(tool.tools)) continue;
    for (const fn of tool.tools as Json[]) {
      if (fn.type === 'function')
        names.set(chatFunctionName(tool.name, fn.name), { namespace: String(tool.name), name: String(fn.name) });
    }
  }
  return names;
}

/**
 * Function tools (namespaced ones included) as chat tools; any other kind is an offer that
 * the rule in fields.ts drops, or refuses when `tool_choice` forces it.
 */
function chatTools(body: ResponsesBody, fields: FieldSort): Json[] {
  if (!Array.isArray(body.tools)) return [];
  const tools = body.tools as Json[];
  const inner = (t: Json) => (t.type === 'namespace' && Array.isArray(t.tools) ? (t.tools as Json[]) : []);
  const functions = tools.flatMap((t) => [t, ...inner(t)]).filter((t) => t.type === 'function').length;
  const out: Json[] = [];
  const offer = (tool: Json, param: string, namespace?: unknown) => {
    if (tool.type === 'function') out.push(chatTool(tool, namespace));
    else if (tool.type === 'namespace' && namespace === undefined)
      inner(tool).forEach((t, j) => {
        offer(t, `${param}.tools[${j}]`, tool.name);
      });
    else if (droppableTool(tool, body.tool_choice, functions)) fields.drop(param);
    else throw unsupported(`${param}.type`, `(built-in tool '${String(tool.type)}')`);
  };
  tools.forEach((tool, i) => {
    offer(tool, `tools[${i}]`);
  });
  return out;
}

function appendItem(messages: ChatMessage[], item: Json, param: string): void {
  const type = item.type ?? 'message';
  switch (type) {
    case 'message': {
      const role = item.role === 'developer' ? 'system' : String(item.role);
      if (!['user', 'assistant', 'system'].includes(role))
        throw unsupported(`${param}.role`, `'${role}' is not a chat role`);
      messages.push({ role, content: chatContent(item.content, `${param}.content`, role === 'assistant') });
      return;
    }
    case 'function_call': {
      const call = {
        id: item.call_id,
        type: 'function',
        function: { name: chatFunctionName(item.namespace, item.name), arguments: item.arguments },
      };
      // Consecutive calls are one assistant turn with several tool_calls, as chat expects.
      const last = messages[messages.length - 1];
      if (last && last.role === 'assistant' && !('tool_call_id' in last)) {
        last.tool_calls = [...((last.tool_calls as unknown[]) ?? []), call];
      } else {
        messages.push({ role: 'assistant', content: null, tool_calls: [call] });
      }
      return;
    }
    case 'function_call_output':
      messages.push({
        role: 'tool',
        tool_call_id: item.call_id,
        content: typeof item.output === 'string' ? item.output : textOf(item.output, `${param}.output`),
      });
      return;
    case 'reasoning':
      // A previous turn's reasoning is opaque to chat providers; the turn's text carries on.
      return;
    default:
      throw unsupported(`${param}.type`, `of type '${String(type)}'`);
  }
}

function chatContent(content: unknown, param: string, assistant: boolean): unknown {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content))
    throw new HttpError('invalid_request_error', {
      detail: `Invalid value for '${param}': expected a string or an array of content parts.`,
      param,
    });
  if (assistant) return textOf(content, param);
  return content.map((part: Json, i) => {
    switch (part.type) {
      case 'input_text':
      case 'output_text':
        return { type: 'text', text: part.text };
      case 'input_image':
        return {
          type: 'image_url',
          image_url: { url: part.image_url, ...(part.detail ? { detail: part.detail } : {}) },
        };
      default:
        throw unsupported(`${param}[${i}].type`, `of type '${String(part.type)}'`);
    }
  });
}

const RESPONSES_TEXT_PARTS = new Set(['input_text', 'output_text', 'refusal']);
const CHAT_TEXT_PARTS = new Set(['text', 'refusal']);

/** Content parts of one protocol flattened to text, for places the other takes only a string. */
function textOf(parts: unknown, param: string, textParts = RESPONSES_TEXT_PARTS, fail = unsupported): string {
  if (!Array.isArray(parts))
    throw new HttpError('invalid_request_error', { detail: `Invalid value for '${param}'.`, param });
  return parts
    .map((p: Json, i) => {
      if (textParts.has(String(p.type))) return String(p.text ?? p.refusal ?? '');
      throw fail(`${param}[${i}].type`, `of type '${String(p.type)}'`);
    })
    .join('');
}

function chatTool(tool: Json, namespace: unknown): Json {
  const fn: Json = { name: chatFunctionName(namespace, tool.name) };
  for (const f of ['description', 'parameters', 'strict'] as const)
    if (tool[f] !== undefined && tool[f] !== null) fn[f] = tool[f];
  return { type: 'function', function: fn };
}

function chatToolChoice(choice: unknown): unknown {
  if (typeof choice === 'string') return choice;
  const c = choice as Json;
  if (c.type === 'function') return { type: 'function', function: { name: chatFunctionName(c.namespace, c.name) } };
  throw unsupported('tool_choice', `of type '${String(c.type)}'`);
}

function chatResponseFormat(format: Json): Json {
  if (format.type === 'json_object') return { type: 'json_object' };
  if (format.type === 'json_schema') {
    const { type: _type, ...schema } = format;
    return { type: 'json_schema', json_schema: schema };
  }
  throw unsupported('text.format.type', `'${String(format.type)}'`);
}

const notInResponses = (param: string, why: string): HttpError => refusal('chat-to-responses', param, why);

/** Chat fields with a Responses equivalent of the same name and meaning. */
const CHAT_SAME_NAME = [
  'model',
  'temperature',
  'top_p',
  'parallel_tool_calls',
  'user',
  'stream',
  'metadata',
  'service_tier',
  'prompt_cache_key',
  'prompt_cache_retention',
  'safety_identifier',
] as const;
const CHAT_MESSAGE_FIELDS = new Set(['role', 'content', 'tool_calls', 'tool_call_id', 'refusal']);

/**
 * A chat-completions request as a Responses request, for a channel that speaks only
 * Responses, under the same rule (fields.ts). Two defaults differ between the protocols and
 * are pinned to chat's: `store` (Responses stores by default) and a function tool's `strict`
 * (Responses validates strictly by default).
 */
export function chatToResponses(body: ChatBody, effort: string | null): ConvertedRequest {
  const fields = new FieldSort('chat-to-responses', body);
  const out: Json = {};
  for (const f of CHAT_SAME_NAME) if (body[f] !== undefined && body[f] !== null) out[f] = body[f];
  const input: Json[] = [];
  body.messages.forEach((m, i) => {
    appendMessage(input, m, `messages[${i}]`);
  });
  out.input = input;
  out.store = body.store ?? false;
  if (effort !== null) out.reasoning = { effort };
  const max = body.max_completion_tokens ?? body.max_tokens;
  if (typeof max === 'number') out.max_output_tokens = max;
  if (Array.isArray(body.tools) && body.tools.length)
    out.tools = body.tools.map((t, i) => responsesTool(t as Json, `tools[${i}]`));
  if (body.tool_choice !== undefined && body.tool_choice !== null)
    out.tool_choice = responsesToolChoice(body.tool_choice);
  const text: Json = {};
  const format = body.response_format as Json | undefined | null;
  if (format && format.type !== 'text') text.format = responsesFormat(format);
  if (typeof body.verbosity === 'string') text.verbosity = body.verbosity;
  if (Object.keys(text).length) out.text = text;
  return { body: out, dropped: fields.dropped };
}

function appendMessage(input: Json[], message: Json & { role: string }, param: string): void {
  for (const [field, value] of Object.entries(message)) {
    if (!CHAT_MESSAGE_FIELDS.has(field) && value !== null && value !== undefined)
      throw notInResponses(`${param}.${field}`, 'has no Responses equivalent');
  }
  const { role, content } = message;
  switch (role) {
    case 'system':
    case 'developer':
    case 'user':
      input.push({ role, content: responsesContent(content, `${param}.content`) });
      return;
    case 'assistant': {
      const text =
        content === null || content === undefined
          ? ''
          : typeof content === 'string'
            ? content
            : textOf(content, `${param}.content`, CHAT_TEXT_PARTS, notInResponses);
      if (text) input.push({ role: 'assistant', content: text });
      ((message.tool_calls as Json[] | undefined) ?? []).forEach((call, i) => {
        const fn = call.function as Json | undefined;
        if (call.type !== 'function' || !fn)
          throw notInResponses(`${param}.tool_calls[${i}].type`, `of type '${String(call.type)}'`);
        input.push({ type: 'function_call', call_id: call.id, name: fn.name, arguments: fn.arguments });
      });
      return;
    }
    case 'tool':
      input.push({
        type: 'function_call_output',
        call_id: message.tool_call_id,
        output:
          typeof content === 'string' ? content : textOf(content, `${param}.content`, CHAT_TEXT_PARTS, notInResponses),
      });
      return;
    default:
      throw notInResponses(`${param}.role`, `'${role}' is not a Responses role`);
  }
}

function responsesContent(content: unknown, param: string): unknown {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content))
    throw new HttpError('invalid_request_error', {
      detail: `Invalid value for '${param}': expected a string or an array of content parts.`,
      param,
    });
  return content.map((part: Json, i) => {
    switch (part.type) {
      case 'text':
        return { type: 'input_text', text: part.text };
      case 'image_url': {
        const image = part.image_url as { url?: string; detail?: string };
        return { type: 'input_image', image_url: image.url, detail: image.detail ?? 'auto' };
      }
      case 'file':
        return { type: 'input_file', ...(part.file as Json) };
      default:
        throw notInResponses(`${param}[${i}].type`, `of type '${String(part.type)}'`);
    }
  });
}

function responsesTool(tool: Json, param: string): Json {
  const fn = tool.function as Json | undefined;
  if (tool.type !== 'function' || !fn) throw notInResponses(`${param}.type`, `(tool type '${String(tool.type)}')`);
  const out: Json = { type: 'function', name: fn.name, strict: fn.strict ?? false };
  for (const f of ['description', 'parameters'] as const) if (fn[f] !== undefined && fn[f] !== null) out[f] = fn[f];
  return out;
}

function responsesToolChoice(choice: unknown): unknown {
  if (typeof choice === 'string') return choice;
  const c = choice as Json;
  const fn = c.function as Json | undefined;
  if (c.type === 'function' && fn) return { type: 'function', name: fn.name };
  throw notInResponses('tool_choice', `of type '${String(c.type)}'`);
}

function responsesFormat(format: Json): Json {
  if (format.type === 'json_object') return { type: 'json_object' };
  if (format.type === 'json_schema') return { type: 'json_schema', ...(format.json_schema as Json) };
  throw notInResponses('response_format.type', `'${String(format.type)}'`);
}
