import { z } from 'zod';
import { AI_ASSISTANTS } from './traffic.ts';

/**
 * What the GEO endpoints answer (CONTRACT §6), declared on their routes: the OpenAPI document
 * and the console's types come from here, and the tests check every answer against it.
 */

const Instant = z.iso.datetime();
/** Minor units per currency, never converted. */
const Money = z.record(z.string(), z.int());

export const GeoConfig = z.object({
  brand: z.object({ name: z.string(), aliases: z.array(z.string()) }),
  competitors: z.array(z.object({ name: z.string(), aliases: z.array(z.string()) })),
  models: z.array(z.string()),
  locale: z.string(),
  schedule: z.object({ cron: z.string(), tz: z.string().optional() }).nullable(),
  created_at: Instant,
  updated_at: Instant,
});

export const GeoPrompt = z.object({ id: z.uuid(), text: z.string(), created_at: Instant });

export const GeoRun = z.object({
  id: z.uuid(),
  trigger: z.enum(['manual', 'schedule']),
  status: z.enum(['queued', 'running', 'succeeded', 'partial', 'failed']),
  scheduled_for: Instant.nullable(),
  models: z.array(z.string()),
  prompts: z.int(),
  answers: z.object({ total: z.int(), succeeded: z.int(), failed: z.int(), pending: z.int() }),
  error: z.string().nullable(),
  created_at: Instant,
  started_at: Instant.nullable(),
  finished_at: Instant.nullable(),
});

export const GeoAnswer = z.object({
  id: z.uuid(),
  run_id: z.uuid(),
  prompt_id: z.uuid().nullable(),
  prompt: z.string(),
  model: z.string(),
  status: z.enum(['pending', 'succeeded', 'failed']),
  text: z.string().nullable(),
  error: z.string().nullable(),
  brand: z.object({ mentioned: z.boolean(), position: z.int().nullable() }),
  mentions: z.array(
    z.object({ name: z.string(), kind: z.enum(['brand', 'competitor']), position: z.int(), count: z.int() }),
  ),
  citations: z.array(
    z.object({ url: z.string(), domain: z.string(), source: z.enum(['annotation', 'text']), own_domain: z.boolean() }),
  ),
  created_at: Instant,
  answered_at: Instant.nullable(),
});

export const GeoCitedUrl = z.object({
  url: z.string(),
  domain: z.string(),
  own_domain: z.boolean(),
  answers: z.int(),
  models: z.array(z.string()),
  first_cited_at: Instant,
  last_cited_at: Instant,
});

export const GeoAudit = z.object({
  id: z.uuid(),
  url: z.string(),
  final_url: z.string().nullable(),
  status: z.enum(['running', 'completed', 'failed']),
  score: z.number().nullable(),
  checks: z.array(z.object({ id: z.string(), status: z.enum(['pass', 'warn', 'fail']), detail: z.string() })),
  error: z.string().nullable(),
  created_at: Instant.optional(),
  completed_at: Instant.nullable(),
});

const Ratio = z.object({ value: z.number().nullable(), numerator: z.int(), denominator: z.int() });
const Metrics = z.object({
  answers: z.int(),
  mention_rate: Ratio,
  share_of_voice: Ratio,
  citation_rate: Ratio,
  average_position: z.number().nullable(),
});
const ByModel = { overall: Metrics, models: z.record(z.string(), Metrics) };
const ReportWindow = z.object({ from: Instant, to: Instant, tz: z.string(), days: z.int() });

export const GeoOverview = z.object({
  data: z.object({
    ...ByModel,
    entities: z.array(
      z.object({
        name: z.string(),
        kind: z.enum(['brand', 'competitor']),
        answers: z.int(),
        mention_rate: Ratio,
        average_position: z.number().nullable(),
      }),
    ),
    coverage: z.object({
      runs: z.object({
        succeeded: z.int(),
        partial: z.int(),
        failed: z.int(),
        in_progress: z.int(),
        rate: Ratio,
      }),
      models: z.object({ configured: z.array(z.string()), answered: z.array(z.string()), rate: Ratio }),
    }),
  }),
  window: ReportWindow,
  freshness: z.object({ as_of: Instant, last_answer_at: Instant.nullable() }),
});

export const GeoTrends = z.object({
  data: z.array(z.object({ day: z.iso.date(), ...ByModel })),
  window: ReportWindow,
});

const AssistantId = z.enum(AI_ASSISTANTS.map((a) => a.id));

export const GeoTraffic = z.object({
  data: z.object({
    visits: z.int(),
    assistants: z.array(
      z.object({
        assistant: AssistantId,
        visits: z.int(),
        visitors: z.int(),
        first_touch: z
          .object({ registrations: z.int(), activations: z.int(), paid_orders: z.int(), revenue: Money })
          .describe('what the users whose first touch it was did in the window'),
        last_touch: z
          .object({ paid_orders: z.int(), revenue: Money })
          .describe('paid orders and revenue whose last touch before them it was'),
      }),
    ),
    days: z.array(
      z.object({
        day: z.iso.date(),
        visits: z.int(),
        assistants: z.record(z.string(), z.int()).describe('visits per assistant id'),
      }),
    ),
  }),
  currencies: z.array(z.string()),
  window: ReportWindow,
});
