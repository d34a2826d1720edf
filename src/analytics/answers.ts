import { z } from 'zod';
import { RESOURCES } from '../auth/scopes.ts';

/**
 * What each analytics view answers (CONTRACT §5), declared on its route: the OpenAPI document
 * and the console's types come from here, and the tests check every answer against it.
 */

/** Minor units per currency, never converted: `{"USD": 1250}`. */
const Money = z.record(z.string(), z.int());
const Instant = z.iso.datetime();

const Coverage = z.object({
  window: z.object({ from: Instant, to: Instant, tz: z.string(), days: z.int() }),
  families: z.record(
    z.enum(RESOURCES),
    z.object({
      records: z.int(),
      first_occurred_at: Instant.nullable(),
      last_occurred_at: Instant.nullable(),
      days_with_data: z.int(),
      days_in_window: z.int(),
    }),
  ),
  metrics: z
    .record(
      z.string(),
      z.object({
        source: z.enum(['raw', 'summaries', 'raw+summaries', 'none']),
        raw_days: z.int(),
        summary_days: z.int(),
      }),
    )
    .describe('per summary metric: whether raw records, summaries or both fed it'),
  summaries: z.object({ used: z.int(), unused: z.int() }),
  relay: z
    .object({
      category: z.literal('usage'),
      calls: z.int(),
      unpriced_calls: z.int(),
      spend_nanos: Money,
      days_with_calls: z.int(),
      last_call_at: Instant.nullable(),
    })
    .describe("the site's model calls through the relay, counted as `usage` costs; unpriced calls in no money figure"),
});

const Freshness = z.object({
  as_of: Instant.nullable(),
  lag_seconds: z.number(),
  pending_hours: z.int(),
  last_received_at: Instant.nullable(),
});

/** `{data, coverage, currencies, freshness}` around a view's `data`. */
const view = <D extends z.ZodType>(data: D) =>
  z.object({ data, coverage: Coverage, currencies: z.array(z.string()), freshness: Freshness });

const Ratio = z.number().nullable();

export const OverviewAnswer = view(
  z.object({
    visits: z.int(),
    visitors: z.int(),
    registrations: z.int(),
    activations: z.int(),
    active_users: z.int(),
    paid_orders: z.int(),
    receipts: Money,
    refunds: Money,
    net_revenue: Money,
    costs: Money,
    mrr: Money,
    uptime: z.object({ ratio: Ratio, healthy: z.int(), degraded: z.int(), down: z.int(), unknown: z.int() }),
  }),
);

export const TimeseriesAnswer = view(
  z.object({
    interval: z.enum(['day', 'week', 'month']),
    buckets: z.array(
      z.object({
        start: Instant,
        end: Instant,
        label: z.string(),
        observed: z.boolean().describe('false: no record of any family and no summary on any of its days'),
        visits: z.int(),
        registrations: z.int(),
        activations: z.int(),
        paid_orders: z.int(),
        receipts: Money,
        refunds: Money,
        net_revenue: Money,
        costs: Money,
      }),
    ),
  }),
);

export const FinanceAnswer = view(
  z.object({
    receipts: Money,
    refunds: Money,
    net_revenue: Money,
    costs: z.object({ total: Money, by_category: z.record(z.string(), Money) }),
    expenses: z.object({ total: Money, by_scope: z.record(z.string(), Money) }),
    margin: Money,
    mrr: Money,
    arr: Money,
    subscriptions: z.object({ active: z.int(), new: z.int(), churned: z.int() }),
  }),
);

const Source = z.object({
  visits: z.int(),
  registrations: z.int(),
  activations: z.int(),
  paid_orders: z.int(),
  revenue: Money,
  spend: Money,
  cac: z.record(z.string(), z.int().nullable()),
  roas: z.record(z.string(), Ratio),
});

export const AcquisitionAnswer = view(
  z.object({
    channels: z.array(Source.extend({ channel: z.string().nullable() })),
    campaigns: z.array(
      Source.extend({ campaign_id: z.string(), name: z.string().nullable(), channel: z.string().nullable() }),
    ),
    assistants: z
      .array(Source.extend({ assistant: z.string() }))
      .describe('the same rows by the AI assistant their source names'),
  }),
);

export const FunnelAnswer = view(
  z.object({
    steps: z.array(z.object({ step: z.string(), users: z.int(), conversion_from_previous: Ratio })),
    overall_conversion: Ratio,
  }),
);

export const RetentionAnswer = view(
  z.object({
    cohorts: z.array(
      z.object({
        label: z.string(),
        start: Instant,
        end: Instant,
        users: z.int(),
        weeks: z.array(z.object({ offset: z.int(), active_users: z.int(), share: Ratio })),
      }),
    ),
  }),
);

const Customer = z.object({
  external_user_id: z.string().nullable(),
  revenue: Money,
  spend: Money,
  spend_nanos: Money,
  margin: Money.nullable(),
  margin_reason: z.enum(['currencies_differ', 'unpriced_calls']).nullable(),
  calls: z.int(),
  unpriced_calls: z.int(),
  input_tokens: z.int(),
  output_tokens: z.int(),
});
const CustomerLists = z.array(z.object({ currency: z.string(), customers: z.array(Customer) }));

export const UnitEconomicsAnswer = view(
  z.object({
    customers: z.object({
      count: z.int(),
      with_margin: z.int(),
      negative_margin: z.int(),
      negative_margin_share: Ratio,
      margin_unknown: z.object({ currencies_differ: z.int(), unpriced_calls: z.int() }),
    }),
    top_spenders: CustomerLists,
    lowest_margins: CustomerLists,
    unattributed: Customer.nullable(),
    totals: Customer.omit({ external_user_id: true, margin: true, margin_reason: true }),
  }),
);
