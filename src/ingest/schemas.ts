import { z } from 'zod';
import { RESOURCES, type Resource } from '../auth/scopes.ts';
import { text } from '../shared/text.ts';
import { normalizeTimestamp, TIMESTAMP_PATTERN } from './timestamp.ts';

/**
 * The one description of what can be ingested (spec 2.1–2.4, 8, 9): request validation,
 * the TypeScript types of stored records and the JSON Schema of the docs all come from here.
 * Every object is strict: a field the spec does not list is refused, nested ones included.
 */

export const IDENTIFIER_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9_.:-]{0,127}$/;
export const Identifier = z
  .string()
  .regex(IDENTIFIER_PATTERN, `must match ${IDENTIFIER_PATTERN.source} (1 to 128 characters)`);

/**
 * A Timestamp with a mandatory zone and a real calendar date; its output is the same instant
 * in UTC with `Z`, so two spellings of one instant are one value for digests and revisions.
 */
export const Timestamp = z
  .string()
  .regex(new RegExp(TIMESTAMP_PATTERN), 'must be an ISO 8601 date-time with a zone, e.g. 2026-01-31T12:00:00Z')
  .transform((value, ctx) => {
    const r = normalizeTimestamp(value);
    if ('utc' in r) return r.utc;
    ctx.issues.push({ code: 'custom', message: r.error, input: value });
    return z.NEVER;
  });

/**
 * A strict object whose fields are declared in sorted order. zod writes its output in the order
 * of the shape, so a validated record serializes with sorted keys at every depth: plain
 * JSON.stringify, on V8's fast path, yields its canonical JSON (see canonical.ts).
 */
function sortedStrictObject<T extends Record<string, z.ZodType>>(shape: T) {
  const sorted = Object.fromEntries(Object.entries(shape).sort(([a], [b]) => (a < b ? -1 : 1))) as T;
  return z.strictObject(sorted);
}

export const Currency = z.string().regex(/^[A-Z]{3}$/, 'must be a three-letter upper-case ISO 4217 code');
export const AmountMinor = z.int().min(0).max(1_000_000_000_000);
const FreeText = text({ max: 160 });

/** Fields every record carries (spec 2.2). */
const common = {
  revision: z.int().min(1).max(2_147_483_647).default(1),
  source: z.enum(['site_backend', 'server_sdk', 'client_sdk', 'import', 'manual']),
  occurred_at: Timestamp,
};

export const RECORD_SCHEMAS = {
  customers: sortedStrictObject({
    ...common,
    customer_id: Identifier,
    status: z.enum(['active', 'inactive', 'deleted']),
    created_at: Timestamp,
  }),
  events: sortedStrictObject({
    ...common,
    event_id: Identifier,
    event_type: z.enum([
      'visit',
      'registration_completed',
      'activation_completed',
      'usage',
      'workflow_completed',
      'order_paid',
      'subscription_cancelled',
    ]),
    external_user_id: Identifier.optional(),
    campaign_id: Identifier.optional(),
    session_id: Identifier.optional(),
    activation_definition: Identifier.optional(),
    properties: sortedStrictObject({
      product_category: FreeText.optional(),
      plan_id: Identifier.optional(),
      feature: FreeText.optional(),
      channel: FreeText.optional(),
      device: z.enum(['desktop', 'mobile', 'tablet', 'other']).optional(),
      country: z
        .string()
        .regex(/^[A-Z]{2}$/, 'must be a two-letter upper-case country code')
        .optional(),
      quantity: z.int().min(0).max(1_000_000).optional(),
    }).optional(),
  }),
  orders: sortedStrictObject({
    ...common,
    order_id: Identifier,
    external_user_id: Identifier.optional(),
    amount_minor: AmountMinor,
    currency: Currency,
    status: z.enum(['pending', 'paid', 'cancelled', 'expired']),
    plan_id: Identifier.optional(),
  }),
  payments: sortedStrictObject({
    ...common,
    payment_id: Identifier,
    order_id: Identifier,
    external_user_id: Identifier.optional(),
    amount_minor: AmountMinor,
    currency: Currency,
    status: z.enum(['pending', 'succeeded', 'failed']),
  }),
  refunds: sortedStrictObject({
    ...common,
    refund_id: Identifier,
    payment_id: Identifier,
    amount_minor: AmountMinor,
    currency: Currency,
    status: z.enum(['pending', 'succeeded', 'failed']),
  }),
  subscriptions: sortedStrictObject({
    ...common,
    subscription_id: Identifier,
    external_user_id: Identifier,
    plan_id: Identifier,
    status: z.enum(['trialing', 'active', 'past_due', 'cancelled', 'expired']),
    period_start: Timestamp,
    period_end: Timestamp,
    amount_minor: AmountMinor,
    currency: Currency,
  }),
  costs: sortedStrictObject({
    ...common,
    cost_id: Identifier,
    amount_minor: AmountMinor,
    currency: Currency,
    period_start: Timestamp,
    period_end: Timestamp,
    category: z.enum(['usage', 'infrastructure', 'operations', 'other']),
    event_id: Identifier.optional(),
  }),
  campaigns: sortedStrictObject({
    ...common,
    campaign_id: Identifier,
    name: FreeText,
    channel: z.enum(['search', 'social', 'email', 'referral', 'paid', 'direct', 'other']),
    content_ref: Identifier.optional(),
    status: z.enum(['active', 'paused', 'ended']),
    starts_at: Timestamp,
    ends_at: Timestamp.optional(),
  }),
  expenses: sortedStrictObject({
    ...common,
    expense_id: Identifier,
    campaign_id: Identifier,
    amount_minor: AmountMinor,
    currency: Currency,
    period_start: Timestamp,
    period_end: Timestamp,
    cost_scope: z.enum(['advertising', 'content', 'agency', 'other']),
  }),
  observations: sortedStrictObject({
    ...common,
    observation_id: Identifier,
    target_ref: Identifier,
    target_type: z.enum(['website', 'workflow', 'api']),
    status: z.enum(['healthy', 'degraded', 'down', 'unknown']),
    // Required, but null is a value: "no latency measured" (e.g. the target was down).
    latency_ms: z.int().min(0).max(3_600_000).nullable(),
    region: FreeText.optional(),
  }),
  summaries: sortedStrictObject({
    ...common,
    summary_id: Identifier,
    metric: z.enum(['visits', 'registrations', 'activations', 'active_users', 'receipts', 'refunds', 'costs']),
    period_start: Timestamp,
    period_end: Timestamp,
    value: z.number().min(0).max(1_000_000_000_000),
    unit: z.enum(['count', 'minor_currency']),
    currency: Currency.optional(),
    definition_version: Identifier,
    dimensions: sortedStrictObject({ channel: FreeText.optional(), campaign_id: Identifier.optional() }).default(
      () => ({}),
    ),
  }),
} as const satisfies Record<Resource, z.ZodType>;

export type RecordSchemas = typeof RECORD_SCHEMAS;
/** A record of `R` as validated: defaults applied, timestamps in UTC. */
export type IngestRecordOf<R extends Resource> = z.output<RecordSchemas[R]>;
/** Any validated record, for code that works across resources. */
export type IngestRecord = IngestRecordOf<Resource>;

/** The field naming each resource's record (its identity within a site). */
export const ID_FIELD = {
  customers: 'customer_id',
  events: 'event_id',
  orders: 'order_id',
  payments: 'payment_id',
  refunds: 'refund_id',
  subscriptions: 'subscription_id',
  costs: 'cost_id',
  campaigns: 'campaign_id',
  expenses: 'expense_id',
  observations: 'observation_id',
  summaries: 'summary_id',
} as const satisfies Record<Resource, string>;

export const MAX_RECORDS_PER_BATCH = 500;

function batchSchema<R extends Resource>(resource: R) {
  return z.strictObject({
    schema_version: z.literal(`${resource}.v1` as const),
    batch_id: Identifier,
    records: z.array(RECORD_SCHEMAS[resource]).min(1).max(MAX_RECORDS_PER_BATCH),
  });
}

/**
 * The batch envelope of each resource (spec 2.3), built once and compiled (`z.compile`): a valid
 * batch is parsed by generated code, about a third of the runtime parser's CPU (issue 21: 6 µs
 * a record of the front door's 16); an invalid one falls back to the runtime parser, so every
 * error, pointer and message is the runtime's own. Output and JSON Schema are unchanged.
 */
export const BATCH_SCHEMAS = Object.fromEntries(RESOURCES.map((r) => [r, z.compile(batchSchema(r))])) as {
  [R in Resource]: ReturnType<typeof batchSchema<R>>;
};

export interface IngestBatch {
  schema_version: string;
  batch_id: string;
  records: IngestRecord[];
}

/** JSON Schema of a batch body as clients send it (defaults optional), for the API docs. */
export function batchJsonSchema(resource: Resource): Record<string, unknown> {
  return z.toJSONSchema(BATCH_SCHEMAS[resource], { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}

/** The id of a validated record of `resource`. */
export function recordId(resource: Resource, record: IngestRecord): string {
  return (record as Record<string, unknown>)[ID_FIELD[resource]] as string;
}
