import type { RelayRequest } from '../request.ts';
import type { Usage } from '../usage.ts';
import { chatToResponses, responsesToChat } from './request.ts';
import { chatSeedFor, chatToResponse, responseToChat, seedFor } from './response.ts';
import { ChatToResponsesStream, ResponsesToChatStream, type StreamConverter } from './stream.ts';

/** One request converted for a channel that speaks the other protocol, and the way back. */
export interface Conversion {
  /** The upstream request body. */
  body: string;
  /** Names of the request fields left out of `body` (see fields.ts), for the header and the log. */
  dropped: readonly string[];
  /** A whole upstream answer (parsed JSON) in the client's protocol. */
  answer(upstream: object, usage: Usage): object;
  /** A converter for one upstream stream. */
  stream(): StreamConverter;
}

/** Responses ↔ chat completions, in whichever direction the request needs. */
export function conversionFor(request: RelayRequest, effort: string | null): Conversion {
  switch (request.protocol) {
    case 'responses': {
      const seed = seedFor(request.body, effort);
      const { body, dropped } = responsesToChat(request.body, effort);
      return {
        body: JSON.stringify(body),
        dropped,
        answer: (upstream, usage) => chatToResponse(seed, upstream, usage),
        stream: () => new ChatToResponsesStream(seed),
      };
    }
    case 'chat': {
      const seed = chatSeedFor(request.body);
      const { body, dropped } = chatToResponses(request.body, effort);
      return {
        body: JSON.stringify(body),
        dropped,
        answer: (upstream, usage) => responseToChat(seed, upstream, usage),
        stream: () => new ResponsesToChatStream(seed),
      };
    }
    case 'embeddings':
      throw new Error('embeddings are never converted');
  }
}
