import { z } from 'zod';
import { IDENTIFIER_PATTERN } from '../ingest/schemas.ts';

const tokens = z.number().int().min(0).nullable();

export const UsageRowSchema = z.object({
  id: z.uuid(),
  at: z.iso.datetime(),
  request_id: z.string().min(1).max(128),
  key_id: z.uuid(),
  model: z.string().max(200),
  channel_id: z.uuid().nullable(),
  endpoint: z.enum(['responses', 'chat', 'embeddings']),
  stream: z.boolean(),
  status: z.number().int().min(100).max(599),
  input_tokens: tokens,
  output_tokens: tokens,
  cached_tokens: tokens,
  reasoning_tokens: tokens,
  ttfb_ms: z.number().int().min(0).nullable(),
  duration_ms: z.number().int().min(0),
  // Defaults for jobs enqueued by a front door from before prices existed.
  cost_nanos: z.number().int().min(0).nullable().default(null),
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/)
    .nullable()
    .default(null),
  unpriced: z.boolean().default(false),
  // The site the key was used for, and the customer the call was made for (customer.ts).
  site_id: z.uuid().nullable().default(null),
  customer: z.string().regex(IDENTIFIER_PATTERN).nullable().default(null),
});

/** One job carries the calls of a short window, so metering costs one Redis write per batch. */
export const UsageJobSchema = z.object({ rows: z.array(UsageRowSchema).min(1).max(1000) });
