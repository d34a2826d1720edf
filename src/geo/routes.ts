import { createHash } from 'node:crypto';
import type { AppContext } from '../app-context.ts';
import { z } from 'zod';
import type { Scope } from '../auth/scopes.ts';
import { HttpError, type FieldError } from '../errors/http-error.ts';
import { route, type Route } from '../http/route.ts';
import { pageSchema } from '../shared/pagination.ts';
import { enqueue, JOBS } from '../queues/catalog.ts';
import { AUDIT_LIMITS } from './audit/limits.ts';
import { waitForAudit } from './audit-waiter.ts';
import {
  pageOf,
  presentAnswer,
  presentAudit,
  presentCitedUrl,
  presentConfig,
  presentPrompt,
  presentRun,
} from './present.ts';
import {
  GeoAnswer,
  GeoAudit,
  GeoCitedUrl,
  GeoConfig,
  GeoOverview,
  GeoPrompt,
  GeoRun,
  GeoTraffic,
  GeoTrends,
} from './answers.ts';
import { overview, traffic, trends } from './reports.ts';
import * as repo from './repo.ts';
import { applySchedule } from './schedule.ts';
import {
  AnswersQuery,
  CitationsQuery,
  GeoAuditBody,
  GeoConfigBody,
  GeoPromptBody,
  GeoRunBody,
  IDEMPOTENCY_KEY,
  PageQuery,
  ReportsQuery,
  RunsQuery,
  SiteChecksQuery,
  WindowQuery,
} from './schemas.ts';
import { resolveWindow, type Window } from '../analytics/window.ts';

/** Prompts a site may track; each is asked of every model on every run. */
export const MAX_PROMPTS = 200;

/**
 * How long POST geo/audits waits for the worker: the audit's own 10 s bound plus time for the
 * job to be picked up and stored. Past it the audit is answered as it stands (`running`).
 */
export const AUDIT_WAIT_MS = AUDIT_LIMITS.totalMs + 5_000;

const READ: Scope[] = ['geo:read'];
const EVIDENCE: Scope[] = ['geo:read', 'geo:evidence:read'];

const windowOf = (w: { from?: string; to?: string }) => ({ from: w.from ?? null, to: w.to ?? null });
const tags = ['geo'];

/** 400 listing every configured model the relay does not know (ids are exact, case-sensitive). */
async function checkModels(app: AppContext, models: readonly string[]): Promise<void> {
  const directory = app.relay.directory;
  const errors: FieldError[] = [];
  await Promise.all(
    models.map((m, i) =>
      directory.model(m).catch((err: unknown) => {
        if (!(err instanceof HttpError) || err.code !== 'model_not_found') throw err;
        errors.push({ path: `/models/${i}`, message: err.message });
      }),
    ),
  );
  if (errors.length)
    throw new HttpError('validation_failed', { errors: errors.sort((a, b) => a.path.localeCompare(b.path)) });
}

/** GET geo/<name>: a report over the window analytics views use (`from`, `to`, `tz`). */
function reportRoute<R extends z.ZodType>(
  name: string,
  summary: string,
  response: R,
  report: (db: AppContext['db'], siteId: string, w: Window) => Promise<z.input<R>>,
): Route {
  return route({
    method: 'GET',
    path: `/api/v1/sites/:siteId/geo/${name}`,
    auth: { kind: 'business', scopes: READ },
    query: WindowQuery,
    response,
    docs: { summary, tags },
    handler: async ({ params, query }, app) => ({
      body: await report(app.db, params.siteId, resolveWindow(query, app.config.RADAR_TZ, Date.now())),
    }),
  });
}

/** Every GEO endpoint (spec 4.6, CONTRACT §2 scopes, §6); GETs start nothing. */
export const geoRoutes: Route[] = [
  route({
    method: 'GET',
    path: '/api/v1/sites/:siteId/geo/config',
    auth: { kind: 'business', scopes: READ },
    response: z.object({ data: GeoConfig.nullable() }),
    docs: { summary: 'The GEO configuration, or null before the first PUT', tags },
    handler: async ({ params }, app) => {
      const c = await repo.findConfig(app.db, params.siteId);
      return { body: { data: c ? presentConfig(c) : null } };
    },
  }),
  route({
    method: 'PUT',
    path: '/api/v1/sites/:siteId/geo/config',
    auth: { kind: 'business', scopes: ['geo:configure'] },
    body: GeoConfigBody,
    response: GeoConfig,
    docs: { summary: 'Replace the GEO configuration: brand, competitors, models, locale, schedule', tags },
    handler: async ({ params: { siteId }, body }, app) => {
      await checkModels(app, body.models);
      const stored = await repo.upsertConfig(app.db, siteId, {
        brand_name: body.brand.name,
        brand_aliases: body.brand.aliases,
        competitors: body.competitors,
        models: body.models,
        locale: body.locale,
        schedule: body.schedule,
      });
      // After the row: a scheduler firing for a site whose row says otherwise does nothing, and a
      // worker start installs what the rows say, so a failure here cannot leave a wrong schedule.
      await applySchedule(app.queues, siteId, body.schedule, app.config.RADAR_TZ);
      return { body: presentConfig(stored) };
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/sites/:siteId/geo/prompts',
    auth: { kind: 'business', scopes: READ },
    query: PageQuery,
    response: pageSchema(GeoPrompt),
    docs: { summary: 'The tracked prompts, oldest first', tags },
    handler: async ({ params, query }, app) => ({
      body: pageOf(query, await repo.listPrompts(app.db, params.siteId, query), presentPrompt),
    }),
  }),
  route({
    method: 'POST',
    path: '/api/v1/sites/:siteId/geo/prompts',
    auth: { kind: 'business', scopes: ['geo:configure'] },
    body: GeoPromptBody,
    response: GeoPrompt.extend({ created: z.boolean().describe('false: the prompt was tracked already') }),
    docs: { summary: 'Track a prompt (an existing one is answered as it is)', tags, errors: [409] },
    handler: async ({ params, body }, app) => {
      const prompt = await repo.insertPrompt(app.db, params.siteId, body.text, MAX_PROMPTS);
      if (!prompt) throw new HttpError('geo_prompt_limit', { detail: `a site tracks at most ${MAX_PROMPTS} prompts` });
      return { body: { ...presentPrompt(prompt), created: prompt.created } };
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/sites/:siteId/geo/runs',
    auth: { kind: 'business', scopes: READ },
    query: RunsQuery,
    response: pageSchema(GeoRun),
    docs: { summary: 'GEO runs, newest first, with their answer counts', tags },
    handler: async ({ params, query }, app) => ({
      body: pageOf(query, await repo.listRuns(app.db, params.siteId, { ...query, ...windowOf(query) }), presentRun),
    }),
  }),
  route({
    method: 'POST',
    path: '/api/v1/sites/:siteId/geo/runs',
    auth: { kind: 'business', scopes: ['geo:run'] },
    body: GeoRunBody.optional(),
    response: GeoRun,
    docs: {
      summary: 'Start a run now: every prompt asked of every configured model; answered `queued`',
      description: 'GET geo/runs shows its progress.',
      tags,
      errors: [409],
    },
    handler: async ({ params: { siteId } }, app) => {
      const [config, prompts] = await Promise.all([
        repo.findConfig(app.db, siteId),
        repo.listPrompts(app.db, siteId, { limit: 1, offset: 0 }),
      ]);
      if (!config || prompts.total === 0) {
        throw new HttpError('geo_not_configured', {
          detail: !config ? 'PUT geo/config first' : 'POST geo/prompts first: the site tracks no prompt',
        });
      }
      const runId = await repo.insertRun(app.db, {
        siteId,
        trigger: 'manual',
        scheduledFor: null,
        models: config.models,
      });
      await enqueue(app.queues, JOBS.geoRun, { run_id: runId });
      const { rows } = await repo.listRuns(app.db, siteId, { runId, limit: 1, offset: 0, from: null, to: null });
      return { body: presentRun(rows[0]!) };
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/sites/:siteId/geo/answers',
    auth: { kind: 'business', scopes: EVIDENCE },
    query: AnswersQuery,
    response: pageSchema(GeoAnswer),
    docs: { summary: 'Answers as the models gave them, with mentions and citations', tags },
    handler: async ({ params, query: q }, app) => ({
      body: pageOf(
        q,
        await repo.listAnswers(app.db, params.siteId, { ...q, ...windowOf(q), runId: q.run_id }),
        presentAnswer,
      ),
    }),
  }),
  route({
    method: 'GET',
    path: '/api/v1/sites/:siteId/geo/citations',
    auth: { kind: 'business', scopes: EVIDENCE },
    query: CitationsQuery,
    response: pageSchema(GeoCitedUrl),
    docs: { summary: 'Cited URLs, most cited first', tags },
    handler: async ({ params, query: q }, app) => ({
      body: pageOf(
        q,
        await repo.listCitations(app.db, params.siteId, {
          ...q,
          ...windowOf(q),
          runId: q.run_id,
          domain: q.domain?.toLowerCase().replace(/^www\./, ''),
        }),
        presentCitedUrl,
      ),
    }),
  }),
  reportRoute(
    'overview',
    'Mention rate, share of voice, citation rate, average position and coverage over a window',
    GeoOverview,
    overview,
  ),
  reportRoute('trends', 'The GEO metrics per day of a window, overall and per model', GeoTrends, trends),
  reportRoute(
    'traffic',
    'What AI assistants brought in: visits and visitors, and the registrations, activations, paid orders and revenue of the users they first (and last) brought',
    GeoTraffic,
    traffic,
  ),
  route({
    method: 'GET',
    path: '/api/v1/sites/:siteId/geo/reports',
    auth: { kind: 'business', scopes: READ },
    query: ReportsQuery,
    response: pageSchema(GeoAudit),
    docs: {
      summary: 'Page audits, newest first',
      description: '`status` and `url` (the audited URL exactly as it was given) narrow the list.',
      tags,
    },
    handler: async ({ params, query }, app) => ({
      body: pageOf(query, await repo.listAudits(app.db, params.siteId, { ...query, ...windowOf(query) }), presentAudit),
    }),
  }),
  route({
    method: 'GET',
    path: '/api/v1/sites/:siteId/geo/site-checks',
    auth: { kind: 'business', scopes: READ },
    query: SiteChecksQuery,
    response: z.object({ data: z.array(GeoAudit) }),
    docs: { summary: 'The latest checks of each audited URL', tags },
    handler: async ({ params, query }, app) => ({
      body: { data: (await repo.latestSiteChecks(app.db, params.siteId, query.url ?? null)).map(presentAudit) },
    }),
  }),
  route({
    method: 'POST',
    path: '/api/v1/sites/:siteId/geo/audits',
    auth: { kind: 'business', scopes: ['geo:run'] },
    body: GeoAuditBody,
    response: GeoAudit,
    docs: {
      summary: 'Audit a public page (needs an Idempotency-Key header of 8 to 100 characters)',
      description:
        "The key is claimed with the body's digest in one statement, so of two concurrent first requests one runs the audit and the other sees it running (409).",
      tags,
      errors: [409, 422],
    },
    handler: async ({ params: { siteId }, headers, body, reply }, app) => {
      const key = headers['idempotency-key'];
      if (key === undefined || !IDEMPOTENCY_KEY.test(key)) {
        throw new HttpError('idempotency_key_invalid', {
          detail:
            key === undefined
              ? 'the Idempotency-Key header is required'
              : 'Idempotency-Key must be 8 to 100 visible ASCII characters',
        });
      }
      const digest = createHash('sha256')
        .update(JSON.stringify({ url: body.url }))
        .digest();
      const audit = await repo.claimAudit(app.db, { siteId, key, digest, url: body.url });
      const job = { audit_id: audit.id };
      if (!audit.created) {
        if (!audit.body_digest.equals(digest)) {
          throw new HttpError('idempotency_key_reused', {
            detail: 'this Idempotency-Key was used with another body; use a new key for another audit',
          });
        }
        if (audit.status === 'running') {
          // A no-op while its job exists; it re-creates a job a flushed Redis lost.
          await enqueue(app.queues, JOBS.geoAudit, job);
          throw new HttpError('audit_in_progress', {
            detail: 'the audit with this Idempotency-Key is still running; retry shortly',
            headers: { 'retry-after': '2' },
          });
        }
        return { body: presentAudit(audit) };
      }
      await enqueue(app.queues, JOBS.geoAudit, job);
      return { body: presentAudit(await waitForAudit(app, audit.id, AUDIT_WAIT_MS, reply.signal)) };
    },
  }),
];
