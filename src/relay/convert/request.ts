import { HttpError } from '../../errors/http-error.ts';
import type { ResponsesBody } from '../request.ts';

type Json = Record<string, unknown>;
type ChatMessage = Json & { role: string };

/** Responses fields with a chat-completions equivalent of the same name and meaning. */
const SAME_NAME = ['model', 'temperature', 'top_p', 'parallel_tool_calls', 'user', 'stream'] as const;
/**
 * Responses fields that only steer OpenAI's own storage or caching; a chat-only provider has
 * nothing to do with them, and Codex-style clients send them on every call.
 */
const DROPPED = new Set(['store', 'include', 'prompt_cache_key', 'metadata', 'service_tier', 'truncation', 'safety_identifier', 'stream_options', 'top_logprobs', 'max_tool_calls']);
const HANDLED = new Set([...SAME_NAME, 'input', 'instructions', 'reasoning', 'tools', 'tool_choice', 'max_output_tokens', 'text']);

function unsupported(param: string, why: string): HttpError {
  return new HttpError('unsupported_parameter', {
    detail: `Unsupported parameter: '${param}' ${why} (this model is served through a chat-completions provider).`,
    param,
  });
}

/**
 * A Responses request as a chat-completions request, for a channel that speaks only chat.
 * Fields that cannot be expressed there are refused with 400 unsupported_parameter rather
 * than dropped, so a client never gets an answer to a different question than it asked.
 */
export function responsesToChat(body: ResponsesBody, effort: string | null): Json {
  for (const field of Object.keys(body)) {
    if (HANDLED.has(field) || DROPPED.has(field)) continue;
    if (field === 'background' && !body.background) continue;
    throw unsupported(field, 'has no chat-completions equivalent');
  }
  const chat: Json = {};
  for (const f of SAME_NAME) if (body[f] !== undefined && body[f] !== null) chat[f] = body[f];
  const messages: ChatMessage[] = [];
  if (typeof body.instructions === 'string' && body.instructions) messages.push({ role: 'system', content: body.instructions });
  if (typeof body.input === 'string') messages.push({ role: 'user', content: body.input });
  else body.input.forEach((item, i) => appendItem(messages, item, `input[${i}]`));
  chat.messages = messages;
  if (effort !== null) chat.reasoning_effort = effort;
  if (typeof body.max_output_tokens === 'number') chat.max_tokens = body.max_output_tokens;
  if (Array.isArray(body.tools) && body.tools.length) chat.tools = body.tools.map((t, i) => chatTool(t as Json, `tools[${i}]`));
  if (body.tool_choice !== undefined && body.tool_choice !== null) chat.tool_choice = chatToolChoice(body.tool_choice);
  const format = (body.text as { format?: Json } | undefined)?.format;
  if (format && format.type !== 'text') chat.response_format = chatResponseFormat(format);
  // Without this a chat provider sends no usage in streams, and response.completed must carry it.
  if (body.stream) chat.stream_options = { include_usage: true };
  return chat;
}

function appendItem(messages: ChatMessage[], item: Json, param: string): void {
  const type = item.type ?? 'message';
  switch (type) {
    case 'message': {
      const role = item.role === 'developer' ? 'system' : String(item.role);
      if (!['user', 'assistant', 'system'].includes(role)) throw unsupported(`${param}.role`, `'${role}' is not a chat role`);
      messages.push({ role, content: chatContent(item.content, `${param}.content`, role === 'assistant') });
      return;
    }
    case 'function_call': {
      const call = { id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } };
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
      messages.push({ role: 'tool', tool_call_id: item.call_id, content: typeof item.output === 'string' ? item.output : textOf(item.output, `${param}.output`) });
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
  if (!Array.isArray(content)) throw new HttpError('invalid_request_error', { detail: `Invalid value for '${param}': expected a string or an array of content parts.`, param });
  if (assistant) return textOf(content, param);
  return content.map((part: Json, i) => {
    switch (part.type) {
      case 'input_text':
      case 'output_text':
        return { type: 'text', text: part.text };
      case 'input_image':
        return { type: 'image_url', image_url: { url: part.image_url, ...(part.detail ? { detail: part.detail } : {}) } };
      default:
        throw unsupported(`${param}[${i}].type`, `of type '${String(part.type)}'`);
    }
  });
}

function textOf(parts: unknown, param: string): string {
  if (!Array.isArray(parts)) throw new HttpError('invalid_request_error', { detail: `Invalid value for '${param}'.`, param });
  return parts.map((p: Json, i) => {
    if (p.type === 'input_text' || p.type === 'output_text' || p.type === 'refusal') return String(p.text ?? p.refusal ?? '');
    throw unsupported(`${param}[${i}].type`, `of type '${String(p.type)}'`);
  }).join('');
}

function chatTool(tool: Json, param: string): Json {
  if (tool.type !== 'function') throw unsupported(`${param}.type`, `(built-in tool '${String(tool.type)}')`);
  const fn: Json = { name: tool.name };
  for (const f of ['description', 'parameters', 'strict'] as const) if (tool[f] !== undefined && tool[f] !== null) fn[f] = tool[f];
  return { type: 'function', function: fn };
}

function chatToolChoice(choice: unknown): unknown {
  if (typeof choice === 'string') return choice;
  const c = choice as Json;
  if (c.type === 'function') return { type: 'function', function: { name: c.name } };
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
