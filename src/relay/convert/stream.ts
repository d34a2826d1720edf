import { sseFrame } from '../sse.ts';
import { noUsage, readUsage, type Usage } from '../usage.ts';
import { ending, functionCallItem, messageItem, newId, outputTextPart, responseObject, type ResponseSeed } from './response.ts';

type Json = Record<string, unknown>;

interface ChatChunk {
  choices?: { index?: number; delta?: { content?: string | null; refusal?: string | null; tool_calls?: ToolCallDelta[] }; finish_reason?: string | null }[];
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
export class ChatToResponsesStream {
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
    let chunk: ChatChunk;
    try {
      chunk = JSON.parse(data) as ChatChunk;
    } catch {
      return '';
    }
    if (chunk.error) {
      this.upstreamError = { code: chunk.error.code ?? 'server_error', message: chunk.error.message ?? 'the upstream provider reported an error' };
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
      const error = this.upstreamError ?? { code: 'server_error', message: failure ?? 'The upstream provider closed the stream before it finished.' };
      return this.closeItems() + this.event('response.failed', { response: responseObject(this.seed, 'failed', this.output, this.usage, { error }) });
    }
    const out = this.closeItems();
    const end = ending(this.finishReason);
    const type = end.status === 'completed' ? 'response.completed' : 'response.incomplete';
    return out + this.event(type, { response: responseObject(this.seed, end.status, this.output, this.usage, { incompleteReason: end.incompleteReason }) });
  }

  private text(delta: string): string {
    let out = '';
    if (!this.message) {
      // Text after tool calls starts a new message item; the calls before it stay complete.
      out += this.closeCalls();
      this.message = this.open('message', newId('msg'));
      out += this.event('response.output_item.added', { output_index: this.message.outputIndex, item: messageItem(this.message.id, '', 'in_progress') });
      out += this.event('response.content_part.added', { item_id: this.message.id, output_index: this.message.outputIndex, content_index: 0, part: outputTextPart('') });
    }
    this.message.text += delta;
    return out + this.event('response.output_text.delta', { item_id: this.message.id, output_index: this.message.outputIndex, content_index: 0, delta, logprobs: [] });
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
      out += this.event('response.output_item.added', { output_index: call.outputIndex, item: functionCallItem(call.id, call.callId, call.name, '', 'in_progress') });
    }
    const args = tc.function?.arguments;
    if (!args) return out;
    call.text += args;
    return out + this.event('response.function_call_arguments.delta', { item_id: call.id, output_index: call.outputIndex, delta: args });
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
    return this.event('response.output_text.done', { item_id: m.id, output_index: m.outputIndex, content_index: 0, text: m.text, logprobs: [] })
      + this.event('response.content_part.done', { item_id: m.id, output_index: m.outputIndex, content_index: 0, part: outputTextPart(m.text) })
      + this.event('response.output_item.done', { output_index: m.outputIndex, item });
  }

  private closeCalls(): string {
    let out = '';
    for (const c of this.calls.values()) {
      const item = functionCallItem(c.id, c.callId, c.name, c.text, 'completed');
      this.output[c.outputIndex] = item;
      out += this.event('response.function_call_arguments.done', { item_id: c.id, output_index: c.outputIndex, name: c.name, arguments: c.text })
        + this.event('response.output_item.done', { output_index: c.outputIndex, item });
    }
    this.calls.clear();
    return out;
  }

  private event(type: string, body: Json): string {
    return sseFrame(type, { type, sequence_number: this.seq++, ...body });
  }
}
