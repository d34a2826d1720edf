import { createRequire } from 'node:module';
import type * as CronParser from 'cron-parser';
import { z } from 'zod';
import { queryInteger } from '../shared/query-integer.ts';
import { isTimeZone } from '../shared/time-zone.ts';
import { windowParams } from '../analytics/schemas.ts';
import { Timestamp } from '../ingest/schemas.ts';
import { httpUrl, text } from '../shared/text.ts';

/**
 * Request shapes of the GEO endpoints (CONTRACT §6). Every object is strict: an unknown field
 * is a 400 naming it, as everywhere else in the API.
 */

const Name = text({ min: 1, max: 160, unpadded: true });
const Aliases = z.array(Name).max(20).default([]);
const ModelId = text({ min: 1, max: 200 });

// cron-parser brings luxon (~0.7 MB of source and objects); only a schedule being set needs it.
const require = createRequire(import.meta.url);
const cronParser = () => (require('cron-parser') as typeof CronParser).CronExpressionParser;

/** The shortest gap between two scheduled runs: each run costs prompts × models calls. */
export const MIN_SCHEDULE_GAP_MS = 60 * 60 * 1000;

/**
 * A schedule is a five-field cron pattern read in `tz` (default RADAR_TZ), the syntax BullMQ's
 * job scheduler runs, e.g. `{"cron": "0 6 * * *"}` for every day at 06:00. At most one run an
 * hour; `null` turns scheduled runs off.
 */
const Schedule = z
  .strictObject({
    cron: text({ min: 9, max: 100, unpadded: true }),
    tz: z.string().refine(isTimeZone, 'must be an IANA time zone').optional(),
  })
  .superRefine((s, ctx) => {
    // A bad tz is reported on its own; reading the pattern in it would only add noise.
    if (s.tz !== undefined && !isTimeZone(s.tz)) return;
    if (s.cron.split(/\s+/).length !== 5) {
      ctx.addIssue({
        code: 'custom',
        path: ['cron'],
        message: 'must have five fields: minute hour day-of-month month day-of-week',
      });
      return;
    }
    try {
      const it = cronParser().parse(s.cron, { tz: s.tz ?? 'UTC', strict: false });
      let prev = it.next().getTime();
      for (let i = 0; i < 48; i++) {
        const next = it.next().getTime();
        if (next - prev < MIN_SCHEDULE_GAP_MS) {
          ctx.addIssue({ code: 'custom', path: ['cron'], message: 'runs more often than once an hour' });
          return;
        }
        prev = next;
      }
    } catch (err) {
      ctx.addIssue({
        code: 'custom',
        path: ['cron'],
        message: `is not a valid cron pattern: ${(err as Error).message}`,
      });
    }
  });
export type GeoSchedule = z.output<typeof Schedule>;

/** Body of PUT geo/config: the whole configuration, replacing the stored one. */
export const GeoConfigBody = z
  .strictObject({
    brand: z.strictObject({ name: Name, aliases: Aliases }),
    competitors: z
      .array(z.strictObject({ name: Name, aliases: Aliases }))
      .max(50)
      .default([]),
    /** Relay model ids (exact, case-sensitive), each asked every prompt on every run. */
    models: z.array(ModelId).min(1).max(10),
    /** BCP 47 tag the models are asked to answer for. */
    locale: z
      .string()
      .regex(/^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$/, 'must be a BCP 47 language tag, e.g. en-US')
      .default('en-US'),
    schedule: Schedule.nullable().default(null),
  })
  .superRefine((c, ctx) => {
    // One name meaning two entities would make every mention of it ambiguous.
    const seen = new Map<string, string>();
    const claim = (name: string, path: (string | number)[]) => {
      const k = name.toLowerCase();
      if (seen.has(k)) ctx.addIssue({ code: 'custom', path, message: `"${name}" is already used at ${seen.get(k)}` });
      else seen.set(k, `/${path.join('/')}`);
    };
    claim(c.brand.name, ['brand', 'name']);
    c.brand.aliases.forEach((a, i) => {
      claim(a, ['brand', 'aliases', i]);
    });
    c.competitors.forEach((comp, j) => {
      claim(comp.name, ['competitors', j, 'name']);
      comp.aliases.forEach((a, i) => {
        claim(a, ['competitors', j, 'aliases', i]);
      });
    });
    const models = new Set<string>();
    c.models.forEach((m, i) => {
      if (models.has(m)) ctx.addIssue({ code: 'custom', path: ['models', i], message: 'listed twice' });
      models.add(m);
    });
  });
export type GeoConfigInput = z.output<typeof GeoConfigBody>;

export const GeoPromptBody = z.strictObject({
  text: text({ min: 3, max: 500, unpadded: true }),
});

/** Body of POST geo/runs: empty (or `{}`); a run asks every prompt of every configured model. */
export const GeoRunBody = z.strictObject({});

export const GeoAuditBody = z.strictObject({
  url: httpUrl({ max: 2048 }),
});

/** `Idempotency-Key` of POST geo/audits: 8 to 100 visible ASCII characters. */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{8,100}$/;

const page = { limit: queryInteger(1, 200, 50), offset: queryInteger(0, 10_000, 0) };
const window = { from: Timestamp.optional(), to: Timestamp.optional() };

function ordered<T extends { from?: string; to?: string }>(q: T, ctx: z.RefinementCtx): void {
  if (q.from !== undefined && q.to !== undefined && Date.parse(q.to) <= Date.parse(q.from)) {
    ctx.addIssue({ code: 'custom', path: ['to'], message: 'must be after from' });
  }
}

export const PageQuery = z.strictObject(page);
export const RunsQuery = z.strictObject({ ...page, ...window }).superRefine(ordered);
export const AnswersQuery = z
  .strictObject({
    ...page,
    ...window,
    run_id: z.uuid().optional(),
    model: ModelId.optional(),
    status: z.enum(['pending', 'succeeded', 'failed']).optional(),
  })
  .superRefine(ordered);
export const CitationsQuery = z
  .strictObject({
    ...page,
    ...window,
    run_id: z.uuid().optional(),
    model: ModelId.optional(),
    domain: text({ min: 1, max: 253 }).optional(),
  })
  .superRefine(ordered);
/** Report windows (src/analytics/window.ts): as the analytics views take them. */
export const WindowQuery = z.strictObject(windowParams);
export const ReportsQuery = z
  .strictObject({
    ...page,
    ...window,
    status: z.enum(['running', 'completed', 'failed']).optional(),
    url: text({ min: 1, max: 2048 }).optional(),
  })
  .superRefine(ordered);
export const SiteChecksQuery = z.strictObject({ url: text({ min: 1, max: 2048 }).optional() });
