import { sseFrame } from '../sse.ts';
import { noUsage, readUsage, usageIn, type Usage } from '../usage.ts';
import {
  chatToolCall,
  chatUsage,
  ending,
  finishReason,
  functionCallItem,
  messageItem,
  newId,
  outputTextPart,
  responseObject,
  type ChatSeed,
  type ResponseBody,
  type ResponseOutputItem,
  type ResponseSeed,
} from './response.ts';

type Json = Record<string, unknown>;

/**
 * Turns one upstream stream into the client's protocol. Every method returns the SSE text to
 * forward at once; `end` closes the answer, as a failure when the upstream never finished.
 */
export interface StreamConverter {
  /** Token counts seen so far, for metering even when the client leaves early. */
  readonly usage: Usage;
  start(): string;
  /** One upstream `data:` payload. */
  push(data: string): string;
  end(failure?: string): string;
}

interface ChatChunk {
  choices?: {
    index?: number;
    delta?: { content?: string | null; refusal?: string | null; tool_calls?: ToolCallDelta[] };
    finish_reason?: string | null;
  }[];
  usage?: unknown;
  error?: { message?: string; code?: string; type?: string };
}

interface ToolCallDelta {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

interface OpenItem {
  outputIndex: number;
  id: string;
  kind: 'message' | 'function_call';
  text: string;
  callId: string;
  name: string;
}

/**
 * Turns a chat-completions stream into the Responses event sequence a Responses client
 * expects: response.created, response.in_progress, then per output item
 * output_item.added → (content_part.added → output_text.delta… → output_text.done →
 * content_part.done | function_call_arguments.delta… → function_call_arguments.done) →
 * output_item.done, and finally response.completed, response.incomplete or response.failed
 * with the full usage. Every method returns the SSE text to forward at once.
 */
export class ChatToResponsesStream implements StreamConverter {
  readonly usage: Usage = noUsage();
  private seq = 0;
  private readonly output: Json[] = [];
  private message: OpenItem | null = null;
  private readonly calls = new Map<number, OpenItem>();
  private finishReason: string | null = null;
  private upstreamError: Json | null = null;
  private ended = false;

  constructor(private readonly seed: ResponseSeed) {}

  start(): string {
    const response = responseObject(this.seed, 'in_progress', [], null);
    return this.event('response.created', { response }) + this.event('response.in_progress', { response });
  }

  /** One upstream `data:` payload. */
  push(data: string): string {
    if (this.ended || data === '[DONE]') return '';
    const chunk = frameJson<ChatChunk>(data);
    if (!chunk) return '';
    if (chunk.error) {
      this.upstreamError = {
        code: chunk.error.code ?? 'server_error',
        message: chunk.error.message ?? 'the upstream provider reported an error',
      };
      return '';
    }
    if (chunk.usage) readUsage(chunk.usage, this.usage);
    let out = '';
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue;
      const delta = choice.delta ?? {};
      if (delta.content) out += this.text(delta.content);
      for (const tc of delta.tool_calls ?? []) out += this.toolCall(tc);
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
    }
    return out;
  }

  /**
   * The upstream stream is over. Without a finish reason it broke off (or sent an error
   * frame): the client gets response.failed instead of a stream that just stops.
   */
  end(failure?: string): string {
    if (this.ended) return '';
    this.ended = true;
    if (this.upstreamError || failure || this.finishReason === null) {
      const error = this.upstreamError ?? {
        code: 'server_error',
        message: failure ?? 'The upstream provider closed the stream before it finished.',
      };
      return (
        this.closeItems() +
        this.event('response.failed', {
          response: responseObject(this.seed, 'failed', this.output, this.usage, { error }),
        })
      );
    }
    const out = this.closeItems();
    const end = ending(this.finishReason);
    const type = end.status === 'completed' ? 'response.completed' : 'response.incomplete';
    return (
      out +
      this.event(type, {
        response: responseObject(this.seed, end.status, this.output, this.usage, {
          incompleteReason: end.incompleteReason,
        }),
      })
    );
  }

  private text(delta: string): string {
    let out = '';
    if (!this.message) {
      // Text after tool calls starts a new message item; the calls before it stay complete.
      out += this.closeCalls();
      this.message = this.open('message', newId('msg'));
      out += this.event('response.output_item.added', {
        output_index: this.message.outputIndex,
        item: messageItem(this.message.id, '', 'in_progress'),
      });
      out += this.event('response.content_part.added', {
        item_id: this.message.id,
        output_index: this.message.outputIndex,
        content_index: 0,
        part: outputTextPart(''),
      });
    }
    this.message.text += delta;
    return (
      out +
      this.event('response.output_text.delta', {
        item_id: this.message.id,
        output_index: this.message.outputIndex,
        content_index: 0,
        delta,
        logprobs: [],
      })
    );
  }

  private toolCall(tc: ToolCallDelta): string {
    let out = '';
    const index = tc.index ?? 0;
    let call = this.calls.get(index);
    if (!call) {
      out += this.closeMessage();
      call = this.open('function_call', newId('fc'));
      call.callId = tc.id ?? newId('call');
      call.name = tc.function?.name ?? '';
      this.calls.set(index, call);
      out += this.event('response.output_item.added', {
        output_index: call.outputIndex,
        item: functionCallItem(this.seed, call.id, call.callId, call.name, '', 'in_progress'),
      });
    }
    const args = tc.function?.arguments;
    if (!args) return out;
    call.text += args;
    return (
      out +
      this.event('response.function_call_arguments.delta', {
        item_id: call.id,
        output_index: call.outputIndex,
        delta: args,
      })
    );
  }

  private open(kind: OpenItem['kind'], id: string): OpenItem {
    const item: OpenItem = { outputIndex: this.output.length, id, kind, text: '', callId: '', name: '' };
    // Reserve the slot so output indexes stay in the order items were opened.
    this.output.push({});
    return item;
  }

  private closeItems(): string {
    return this.closeMessage() + this.closeCalls();
  }

  private closeMessage(): string {
    const m = this.message;
    if (!m) return '';
    this.message = null;
    const item = messageItem(m.id, m.text, 'completed');
    this.output[m.outputIndex] = item;
    return (
      this.event('response.output_text.done', {
        item_id: m.id,
        output_index: m.outputIndex,
        content_index: 0,
        text: m.text,
        logprobs: [],
      }) +
      this.event('response.content_part.done', {
        item_id: m.id,
        output_index: m.outputIndex,
        content_index: 0,
        part: outputTextPart(m.text),
      }) +
      this.event('response.output_item.done', { output_index: m.outputIndex, item })
    );
  }

  private closeCalls(): string {
    let out = '';
    for (const c of this.calls.values()) {
      const item = functionCallItem(this.seed, c.id, c.callId, c.name, c.text, 'completed');
      this.output[c.outputIndex] = item;
      out +=
        this.event('response.function_call_arguments.done', {
          item_id: c.id,
          output_index: c.outputIndex,
          name: item.name,
          arguments: c.text,
        }) + this.event('response.output_item.done', { output_index: c.outputIndex, item });
    }
    this.calls.clear();
    return out;
  }

  private event(type: string, body: Json): string {
    return sseFrame(type, { type, sequence_number: this.seq++, ...body });
  }
}

interface ResponsesEvent {
  type?: string;
  delta?: string;
  output_index?: number;
  item?: ResponseOutputItem;
  arguments?: string;
  response?: ResponseBody;
  code?: string;
  message?: string;
}

/**
 * Turns a Responses event stream into chat.completion.chunk frames, as OpenAI streams chat:
 * a first chunk with the assistant role, content and refusal deltas, tool calls opened with
 * id and name and then argument deltas, a last chunk with the finish reason, the usage chunk
 * only when the client asked for it (and then `usage: null` on every other chunk), and
 * `data: [DONE]`. A failed or broken upstream stream ends in an error frame, which OpenAI's
 * SDKs raise as an APIError, and no [DONE].
 */
export class ResponsesToChatStream implements StreamConverter {
  readonly usage: Usage = noUsage();
  /** Chat tool-call index per Responses output index, and whether its arguments were streamed. */
  private readonly calls = new Map<number, { index: number; streamed: boolean }>();
  private error: { code?: string; message?: string } | null = null;
  private ended = false;

  constructor(private readonly seed: ChatSeed) {}

  start(): string {
    return this.chunk({ role: 'assistant', content: '', refusal: null });
  }

  push(data: string): string {
    if (this.ended) return '';
    const event = frameJson<ResponsesEvent>(data);
    if (!event) return '';
    switch (event.type) {
      case 'response.output_text.delta':
        return event.delta ? this.chunk({ content: event.delta }) : '';
      case 'response.refusal.delta':
        return event.delta ? this.chunk({ refusal: event.delta }) : '';
      case 'response.output_item.added':
        return event.item?.type === 'function_call' ? this.openCall(event.output_index ?? 0, event.item) : '';
      case 'response.function_call_arguments.delta':
        return this.args(event.output_index ?? 0, event.delta ?? '', true);
      case 'response.function_call_arguments.done':
        // Providers that send the arguments only whole still give the client them once.
        return this.calls.get(event.output_index ?? 0)?.streamed
          ? ''
          : this.args(event.output_index ?? 0, event.arguments ?? '', false);
      case 'response.completed':
      case 'response.incomplete':
        return this.finish(event.response ?? {});
      case 'response.failed':
        readUsage(usageIn(event), this.usage);
        this.error = event.response?.error ?? { message: 'The upstream provider failed to answer.' };
        return '';
      case 'error':
        this.error = { code: event.code, message: event.message };
        return '';
      default:
        return '';
    }
  }

  end(failure?: string): string {
    if (this.ended) return '';
    this.ended = true;
    const error = this.error ?? { message: failure ?? 'The upstream provider closed the stream before it finished.' };
    return sseFrame(null, {
      error: {
        message: error.message ?? 'The upstream provider reported an error.',
        type: 'server_error',
        param: null,
        code: error.code ?? 'server_error',
      },
    });
  }

  private openCall(outputIndex: number, item: ResponseOutputItem): string {
    const index = this.calls.size;
    this.calls.set(outputIndex, { index, streamed: false });
    const { function: fn, ...call } = chatToolCall(item) as { function: Json };
    return this.chunk({ tool_calls: [{ index, ...call, function: { ...fn, arguments: '' } }] });
  }

  private args(outputIndex: number, args: string, streamed: boolean): string {
    const call = this.calls.get(outputIndex);
    if (!call || !args) return '';
    call.streamed ||= streamed;
    return this.chunk({ tool_calls: [{ index: call.index, function: { arguments: args } }] });
  }

  private finish(response: ResponseBody): string {
    if (this.error) return '';
    readUsage(usageIn({ response }), this.usage);
    this.ended = true;
    let out = this.chunk({}, finishReason(response.status, response.incomplete_details?.reason, this.calls.size > 0));
    if (this.seed.includeUsage) out += sseFrame(null, { ...this.head(), choices: [], usage: chatUsage(this.usage) });
    return `${out}data: [DONE]\n\n`;
  }

  private head(): Json {
    return { id: this.seed.id, object: 'chat.completion.chunk', created: this.seed.created, model: this.seed.model };
  }

  private chunk(delta: Json, finish: string | null = null): string {
    const usage = this.seed.includeUsage ? { usage: null } : {};
    return sseFrame(null, {
      ...this.head(),
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...usage,
    });
  }
}

/** A frame's JSON payload; null for one that is not JSON (a keep-alive or a provider's oddity), which is skipped. */
function frameJson<T>(data: string): T | null {
  try {
    return JSON.parse(data) as T;
  } catch {
    return null;
  }
}
