/** Token counts of one call, null where the provider did not say. */
export interface Usage {
  input_tokens: number | null;
  output_tokens: number | null;
  cached_tokens: number | null;
  reasoning_tokens: number | null;
}

export function noUsage(): Usage {
  return { input_tokens: null, output_tokens: null, cached_tokens: null, reasoning_tokens: null };
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * Reads a provider's `usage` object in either protocol's names (Responses: input/output
 * tokens; chat and embeddings: prompt/completion tokens) into `into`.
 */
export function readUsage(raw: unknown, into: Usage): void {
  if (!raw || typeof raw !== 'object') return;
  // biome-ignore lint/suspicious/noExplicitAny: untrusted JSON, every field read through num()
  const u = raw as Record<string, any>;
  into.input_tokens = num(u.input_tokens) ?? num(u.prompt_tokens) ?? into.input_tokens;
  into.output_tokens = num(u.output_tokens) ?? num(u.completion_tokens) ?? into.output_tokens;
  into.cached_tokens =
    num(u.input_tokens_details?.cached_tokens) ?? num(u.prompt_tokens_details?.cached_tokens) ?? into.cached_tokens;
  into.reasoning_tokens =
    num(u.output_tokens_details?.reasoning_tokens) ??
    num(u.completion_tokens_details?.reasoning_tokens) ??
    into.reasoning_tokens;
  // Embeddings report only prompt tokens: nothing was generated.
  if (
    into.output_tokens === null &&
    into.input_tokens !== null &&
    !('completion_tokens' in u) &&
    !('output_tokens' in u)
  )
    into.output_tokens = 0;
}

/** The usage inside a whole body or a stream frame of either protocol, if there is one. */
export function usageIn(value: unknown): unknown {
  const v = value as { usage?: unknown; response?: { usage?: unknown } } | null;
  return v?.usage ?? v?.response?.usage;
}
