import type { Redis } from 'ioredis';
import { HttpError } from '../errors/http-error.ts';
import type { Logger } from '../log.ts';

/**
 * How long a response id is remembered: OpenAI keeps a stored response for 30 days, and
 * `previous_response_id` cannot name one older than that on any provider that copies it.
 */
export const RESPONSE_HOME_TTL_S = 30 * 24 * 3600;

// A Responses answer names itself first thing: the body's (or `response.created` frame's)
// `"id":"resp_…"`; ids of items inside it have other prefixes (msg_, fc_, rs_).
const ID = /"id"\s*:\s*"(resp_[^"\\]{1,200})"/;
// The id comes within the first frame; past this much text it is not coming.
const SEARCH_LIMIT = 16 * 1024;

/** Finds a Responses answer's id in its first bytes, however reads cut them. */
export class ResponseIdWatch {
  private head = '';
  private done = false;

  constructor(private readonly found: (id: string) => void) {}

  push(bytes: Buffer): void {
    if (this.done) return;
    this.head += bytes.toString('latin1', 0, Math.min(bytes.length, SEARCH_LIMIT));
    const m = ID.exec(this.head);
    if (m) this.found(m[1]!);
    if (m || this.head.length >= SEARCH_LIMIT) {
      this.done = true;
      this.head = '';
    }
  }
}

/**
 * Which channel produced each Responses answer, in Redis for as long as the provider keeps
 * the response, so a follow-up (`previous_response_id`) goes where its conversation is.
 */
export class ResponseHomes {
  /** Ids found since the last write, with their channels. */
  private found: [responseId: string, channelId: string][] = [];
  private readonly writeSoon = this.write.bind(this);

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly log: Logger,
  ) {}

  /** The channel that produced `responseId`, or null when Radar does not know it (or Redis cannot say). */
  async channelOf(responseId: string): Promise<string | null> {
    try {
      return await this.redis.get(this.keyOf(responseId));
    } catch (err) {
      this.log.warn({ err, responseId }, 'relay: the channel of a previous response could not be read');
      return null;
    }
  }

  /**
   * Off the answer's path: the id is found while the answer is on its way, and written once
   * the answer has gone out (an immediate runs after the read that carried it has been
   * passed on), with every other id found meanwhile, in one write. A follow-up cannot
   * overtake it: it is read later, and asked on the same connection. A lost write only costs
   * the follow-up its pinning.
   */
  remember(responseId: string, channelId: string): void {
    if (this.found.push([responseId, channelId]) === 1) setImmediate(this.writeSoon);
  }

  private write(): void {
    const found = this.found;
    this.found = [];
    const batch = this.redis.pipeline();
    for (const [responseId, channelId] of found)
      batch.set(this.keyOf(responseId), channelId, 'EX', RESPONSE_HOME_TTL_S);
    batch.exec().then(
      (results) => {
        const failed = results?.find(([err]) => err)?.[0];
        if (failed)
          this.log.warn({ err: failed, responses: found.length }, 'relay: response channels could not be remembered');
      },
      (err: unknown) =>
        this.log.warn({ err, responses: found.length }, 'relay: response channels could not be remembered'),
    );
  }

  private keyOf(responseId: string): string {
    return `${this.prefix}:relay:response:${responseId}`;
  }
}

/** The follow-up's channel (`holder`, as a phrase) cannot take it, and no other channel knows the conversation. */
export function homeUnavailable(responseId: string, holder: string): HttpError {
  return new HttpError('previous_response_unavailable', {
    detail: `The previous response '${responseId}' is held by ${holder}. The call is not sent to another channel: it would not know the conversation. Retry later, or start a new conversation without previous_response_id.`,
    param: 'previous_response_id',
  });
}
