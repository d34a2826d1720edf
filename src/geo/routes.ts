import { createHash } from 'node:crypto';
import type { AppContext } from '../app-context.ts';
import type { Scope } from '../auth/scopes.ts';
import { HttpError, type FieldError } from '../errors/http-error.ts';
import type { RequestContext } from '../http/context.ts';
import { route, type Route, type RouteDocs } from '../http/route.ts';
import { parseBody, parseQuery } from '../http/validate.ts';
import { enqueue, JOBS } from '../queues/catalog.ts';
import { AUDIT_LIMITS } from './audit/fetch.ts';
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
import { resolveWindow } from '../analytics/window.ts';

/** Prompts a site may track; each is asked of every model on every run. */
export const MAX_PROMPTS = 200;

/**
 * How long POST geo/audits waits for the worker: the audit's own 10 s bound plus time for the
 * job to be picked up and stored. Past it the audit is answered as it stands (`running`).
 */
export const AUDIT_WAIT_MS = AUDIT_LIMITS.totalMs + 5_000;

const READ: Scope[] = ['geo:read'];
const EVIDENCE: Scope[] = ['geo:read', 'geo:evidence:read'];

const site = (ctx: RequestContext) => ctx.params.siteId!.toLowerCase();
const windowOf = (w: { from?: string; to?: string }) => ({ from: w.from ?? null, to: w.to ?? null });
/** The report window of geo/overview, trends and traffic: the one analytics views use. */
const reportWindow = (ctx: RequestContext, app: AppContext) =>
  resolveWindow(parseQuery(WindowQuery, ctx), app.config.RADAR_TZ, Date.now());

function geo(
  method: Route['method'],
  path: string,
  scopes: Scope[],
  docs: Omit<RouteDocs, 'tags'>,
  handler: Route['handler'],
): Route {
  return route({
    method,
    path: `/api/v1/sites/:siteId/geo/${path}`,
    auth: { kind: 'business', scopes },
    docs: { ...docs, tags: ['geo'] },
    handler,
  });
}

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

async function putConfig(ctx: RequestContext, app: AppContext) {
  const body = parseBody(GeoConfigBody, ctx);
  await checkModels(app, body.models);
  const stored = await repo.upsertConfig(app.db, site(ctx), {
    brand_name: body.brand.name,
    brand_aliases: body.brand.aliases,
    competitors: body.competitors,
    models: body.models,
    locale: body.locale,
    schedule: body.schedule,
  });
  // After the row: a scheduler firing for a site whose row says otherwise does nothing, and a
  // worker start installs what the rows say, so a failure here cannot leave a wrong schedule.
  await applySchedule(app.queues, site(ctx), body.schedule, app.config.RADAR_TZ);
  return { body: presentConfig(stored) };
}

async function postPrompt(ctx: RequestContext, app: AppContext) {
  const { text } = parseBody(GeoPromptBody, ctx);
  const prompt = await repo.insertPrompt(app.db, site(ctx), text, MAX_PROMPTS);
  if (!prompt) throw new HttpError('geo_prompt_limit', { detail: `a site tracks at most ${MAX_PROMPTS} prompts` });
  return { body: { ...presentPrompt(prompt), created: prompt.created } };
}

/** POST geo/runs: starts a run now and answers it `queued`; GET geo/runs shows its progress. */
async function postRun(ctx: RequestContext, app: AppContext) {
  if (ctx.rawBody.length > 0) parseBody(GeoRunBody, ctx);
  const siteId = site(ctx);
  const [config, prompts] = await Promise.all([
    repo.findConfig(app.db, siteId),
    repo.listPrompts(app.db, siteId, { limit: 1, offset: 0 }),
  ]);
  if (!config || prompts.total === 0) {
    throw new HttpError('geo_not_configured', {
      detail: !config ? 'PUT geo/config first' : 'POST geo/prompts first: the site tracks no prompt',
    });
  }
  const runId = await repo.insertRun(app.db, { siteId, trigger: 'manual', scheduledFor: null, models: config.models });
  await enqueue(app.queues, JOBS.geoRun, { run_id: runId });
  const { rows } = await repo.listRuns(app.db, siteId, { runId, limit: 1, offset: 0, from: null, to: null });
  return { body: presentRun(rows[0]!) };
}

/**
 * POST geo/audits (CONTRACT §6). The key is claimed with the body's digest in one statement, so
 * of two concurrent first requests one runs the audit and the other sees it running (409).
 */
async function postAudit(ctx: RequestContext, app: AppContext) {
  const key = ctx.headers['idempotency-key'];
  if (key === undefined || !IDEMPOTENCY_KEY.test(key)) {
    throw new HttpError('idempotency_key_invalid', {
      detail:
        key === undefined
          ? 'the Idempotency-Key header is required'
          : 'Idempotency-Key must be 8 to 100 visible ASCII characters',
    });
  }
  const body = parseBody(GeoAuditBody, ctx);
  const digest = createHash('sha256')
    .update(JSON.stringify({ url: body.url }))
    .digest();
  const audit = await repo.claimAudit(app.db, { siteId: site(ctx), key, digest, url: body.url });
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
  return { body: presentAudit(await waitForAudit(app, audit.id, AUDIT_WAIT_MS, ctx.reply.signal)) };
}

/** Every GEO endpoint (spec 4.6, CONTRACT §2 scopes, §6); GETs start nothing. */
export const geoRoutes: Route[] = [
  geo('GET', 'config', READ, { summary: 'The GEO configuration, or null before the first PUT' }, async (ctx, app) => {
    const c = await repo.findConfig(app.db, site(ctx));
    return { body: { data: c ? presentConfig(c) : null } };
  }),
  geo(
    'PUT',
    'config',
    ['geo:configure'],
    { summary: 'Replace the GEO configuration: brand, competitors, models, locale, schedule', body: GeoConfigBody },
    putConfig,
  ),
  geo('GET', 'prompts', READ, { summary: 'The tracked prompts, oldest first', query: PageQuery }, async (ctx, app) => {
    const q = parseQuery(PageQuery, ctx);
    return { body: pageOf(q, await repo.listPrompts(app.db, site(ctx), q), presentPrompt) };
  }),
  geo(
    'POST',
    'prompts',
    ['geo:configure'],
    { summary: 'Track a prompt (an existing one is answered as it is)', body: GeoPromptBody, errors: [409] },
    postPrompt,
  ),
  geo(
    'GET',
    'runs',
    READ,
    { summary: 'GEO runs, newest first, with their answer counts', query: RunsQuery },
    async (ctx, app) => {
      const q = parseQuery(RunsQuery, ctx);
      return { body: pageOf(q, await repo.listRuns(app.db, site(ctx), { ...q, ...windowOf(q) }), presentRun) };
    },
  ),
  geo(
    'POST',
    'runs',
    ['geo:run'],
    { summary: 'Start a run now: every prompt asked of every configured model', body: GeoRunBody, errors: [409] },
    postRun,
  ),
  geo(
    'GET',
    'answers',
    EVIDENCE,
    { summary: 'Answers as the models gave them, with mentions and citations', query: AnswersQuery },
    async (ctx, app) => {
      const q = parseQuery(AnswersQuery, ctx);
      return {
        body: pageOf(
          q,
          await repo.listAnswers(app.db, site(ctx), { ...q, ...windowOf(q), runId: q.run_id }),
          presentAnswer,
        ),
      };
    },
  ),
  geo(
    'GET',
    'citations',
    EVIDENCE,
    { summary: 'Cited URLs, most cited first', query: CitationsQuery },
    async (ctx, app) => {
      const q = parseQuery(CitationsQuery, ctx);
      return {
        body: pageOf(
          q,
          await repo.listCitations(app.db, site(ctx), {
            ...q,
            ...windowOf(q),
            runId: q.run_id,
            domain: q.domain?.toLowerCase().replace(/^www\./, ''),
          }),
          presentCitedUrl,
        ),
      };
    },
  ),
  geo(
    'GET',
    'overview',
    READ,
    {
      summary: 'Mention rate, share of voice, citation rate, average position and coverage over a window',
      query: WindowQuery,
    },
    async (ctx, app) => ({ body: await overview(app.db, site(ctx), reportWindow(ctx, app)) }),
  ),
  geo(
    'GET',
    'trends',
    READ,
    { summary: 'The GEO metrics per day of a window, overall and per model', query: WindowQuery },
    async (ctx, app) => ({ body: await trends(app.db, site(ctx), reportWindow(ctx, app)) }),
  ),
  geo(
    'GET',
    'traffic',
    READ,
    { summary: 'Visits sent by AI assistants, per assistant and day', query: WindowQuery },
    async (ctx, app) => ({ body: await traffic(app.db, site(ctx), reportWindow(ctx, app)) }),
  ),
  geo('GET', 'reports', READ, { summary: 'Page audits, newest first', query: ReportsQuery }, async (ctx, app) => {
    const q = parseQuery(ReportsQuery, ctx);
    return { body: pageOf(q, await repo.listAudits(app.db, site(ctx), { ...q, ...windowOf(q) }), presentAudit) };
  }),
  geo(
    'GET',
    'site-checks',
    READ,
    { summary: 'The latest checks of each audited URL', query: SiteChecksQuery },
    async (ctx, app) => {
      const q = parseQuery(SiteChecksQuery, ctx);
      return { body: { data: (await repo.latestSiteChecks(app.db, site(ctx), q.url ?? null)).map(presentAudit) } };
    },
  ),
  geo(
    'POST',
    'audits',
    ['geo:run'],
    {
      summary: 'Audit a public page (needs an Idempotency-Key header of 8 to 100 characters)',
      body: GeoAuditBody,
      errors: [409, 422],
    },
    postAudit,
  ),
];
