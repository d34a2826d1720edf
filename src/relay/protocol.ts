/** The wire protocols a channel may speak; the relay's endpoints map one to one onto them. */
export const PROTOCOLS = ['responses', 'chat', 'embeddings'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/** Path the relay appends to a channel's base URL for each protocol. */
export const UPSTREAM_PATH: Readonly<Record<Protocol, string>> = {
  responses: '/responses',
  chat: '/chat/completions',
  embeddings: '/embeddings',
};

export type ModelKind = 'chat' | 'embedding';

/** Accepted efforts of a model nobody configured with `radar relay model set`. */
export const DEFAULT_EFFORTS: readonly string[] = ['low', 'medium', 'high'];
