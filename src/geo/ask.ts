import PQueue from 'p-queue';
import type { Db } from '../db/connection.ts';
import type { Logger } from '../log.ts';
import { callModel } from '../relay/call.ts';
import { Directory, type Channel } from '../relay/directory.ts';
import type { Protocol } from '../relay/protocol.ts';
import { UpstreamPools } from '../relay/upstream.ts';
import type { Usage } from '../relay/usage.ts';
import type { AbortWatch } from '../shared/abort.ts';
import { readResponsesAnswer, type AnswerContent } from './answer.ts';

export interface AskerOptions {
  /** Calls in flight per relay channel, across every run this process executes. @defaultValue 4 */
  channelConcurrency?: number;
  /** Longest one model call may take. @defaultValue 120000 */
  timeoutMs?: number;
}

export interface Asked extends AnswerContent {
  channelId: string;
  usage: Usage;
}

/**
 * The relay's connection pools with a p-queue per channel in front: a run asking hundreds of
 * prompts cannot flood one provider, and since the limit sits where the relay picks a channel,
 * it holds for failover targets too. A slot is held until the provider's headers arrive, which
 * for a non-streamed answer is nearly all of the call.
 */
class ChannelLimitedPools extends UpstreamPools {
  private readonly limits = new Map<string, PQueue>();

  constructor(private readonly concurrency: number) {
    super();
  }

  override request(channel: Channel, protocol: Protocol, body: string | Buffer, stream: boolean, signal: AbortWatch) {
    let limit = this.limits.get(channel.id);
    if (!limit) this.limits.set(channel.id, (limit = new PQueue({ concurrency: this.concurrency })));
    // GEO's own calls carry a real AbortSignal, which also takes a call still queued out of the queue.
    return limit.add(
      () => super.request(channel, protocol, body, stream, signal),
      signal instanceof AbortSignal ? { signal } : {},
    );
  }
}

/**
 * Asks models through the relay's own channels, with its routing and failover (callModel),
 * without an HTTP round trip to ourselves and without a relay key: GEO runs are the service's
 * own calls, so they are not metered against any key.
 */
export class ModelAsker {
  private readonly directory: Directory;
  private readonly pools: ChannelLimitedPools;
  private readonly closing = new AbortController();
  private readonly timeoutMs: number;

  constructor(
    db: Db,
    private readonly log: Logger,
    opts: AskerOptions = {},
  ) {
    this.directory = new Directory(db);
    this.pools = new ChannelLimitedPools(opts.channelConcurrency ?? 4);
    this.timeoutMs = opts.timeoutMs ?? 120_000;
  }

  /** One non-streamed Responses call; throws with the relay's reason when no channel answers. */
  async ask(model: string, prompt: string, locale: string): Promise<Asked> {
    const signal = AbortSignal.any([this.closing.signal, AbortSignal.timeout(this.timeoutMs)]);
    const call = await callModel(
      // GEO asks one-off questions: no follow-ups, so no response channels to remember.
      { directory: this.directory, pools: this.pools, homes: null, log: this.log },
      {
        request: {
          protocol: 'responses',
          body: { model, input: prompt, instructions: `Answer as you would for a user whose locale is ${locale}.` },
        },
      },
      signal,
    );
    if (call.stream) throw new Error('expected a whole answer, got a stream');
    const body = JSON.parse(call.body.toString()) as unknown;
    return { ...readResponsesAnswer(body), channelId: call.channel.id, usage: call.usage };
  }

  /** True once close() was called: a call that failed then failed because of it. */
  get closed(): boolean {
    return this.closing.signal.aborted;
  }

  /** Aborts calls in flight (their answers are marked failed) and closes upstream connections. */
  async close(): Promise<void> {
    this.closing.abort(new Error('the worker is shutting down'));
    await this.pools.close();
  }
}
