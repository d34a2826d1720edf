import type { Db } from '../db/connection.ts';
import { pgp } from '../db/connection.ts';
import { sqlFile } from '../db/sql-file.ts';
import type { Citation } from './citations.ts';
import type { Mention } from './mentions.ts';
import type { GeoSchedule } from './schemas.ts';

const q = {
  configFind: sqlFile('geo/config-find.sql'),
  configUpsert: sqlFile('geo/config-upsert.sql'),
  configsScheduled: sqlFile('geo/configs-scheduled.sql'),
  promptInsert: sqlFile('geo/prompt-insert.sql'),
  promptList: sqlFile('geo/prompt-list.sql'),
  promptAll: sqlFile('geo/prompt-all.sql'),
  runInsert: sqlFile('geo/run-insert.sql'),
  runFind: sqlFile('geo/run-find.sql'),
  runStart: sqlFile('geo/run-start.sql'),
  unfinished: sqlFile('geo/runs-unfinished.sql'),
  runFinish: sqlFile('geo/run-finish.sql'),
  runList: sqlFile('geo/run-list.sql'),
  answersPending: sqlFile('geo/answers-pending.sql'),
  answerSucceed: sqlFile('geo/answer-succeed.sql'),
  answerFail: sqlFile('geo/answer-fail.sql'),
  answerList: sqlFile('geo/answer-list.sql'),
  citationList: sqlFile('geo/citation-list.sql'),
  metrics: sqlFile('geo/metrics.sql'),
  competitorMetrics: sqlFile('geo/competitor-metrics.sql'),
  runCoverage: sqlFile('geo/run-coverage.sql'),
  trafficSources: sqlFile('geo/traffic-sources.sql'),
  assistantOutcomes: sqlFile('geo/assistant-outcomes.sql'),
  auditClaim: sqlFile('geo/audit-claim.sql'),
  auditFind: sqlFile('geo/audit-find.sql'),
  auditFinish: sqlFile('geo/audit-finish.sql'),
  auditList: sqlFile('geo/audit-list.sql'),
  siteChecks: sqlFile('geo/site-checks.sql'),
};

const citationColumns = new pgp.helpers.ColumnSet(['answer_id', 'site_id', 'url', 'domain', 'source', 'own_domain'], {
  table: 'geo_citations',
});

/**
 * A statement that inserts `ON CONFLICT DO NOTHING` and then selects the existing row sees a
 * row a concurrent transaction committed meanwhile only from a new snapshot: run it once more.
 */
async function orAgain<T>(run: () => Promise<T | null>): Promise<T | null> {
  return (await run()) ?? run();
}

export interface ConfigRow {
  site_id: string;
  brand_name: string;
  brand_aliases: string[];
  competitors: { name: string; aliases: string[] }[];
  models: string[];
  locale: string;
  schedule: GeoSchedule | null;
  created_at: Date;
  updated_at: Date;
}

export function findConfig(db: Db, siteId: string): Promise<ConfigRow | null> {
  return db.oneOrNone<ConfigRow>(q.configFind, { siteId });
}

export function upsertConfig(
  db: Db,
  siteId: string,
  c: Omit<ConfigRow, 'site_id' | 'created_at' | 'updated_at'>,
): Promise<ConfigRow> {
  return db.one<ConfigRow>(q.configUpsert, {
    siteId,
    brandName: c.brand_name,
    brandAliases: c.brand_aliases,
    competitors: JSON.stringify(c.competitors),
    models: c.models,
    locale: c.locale,
    schedule: c.schedule === null ? null : JSON.stringify(c.schedule),
  });
}

export function listScheduledConfigs(db: Db): Promise<{ site_id: string; schedule: GeoSchedule }[]> {
  return db.any(q.configsScheduled);
}

export interface PromptRow {
  id: string;
  text: string;
  created_at: Date;
}

/** The prompt (new or already there), or null when the site has `max` prompts already. */
export function insertPrompt(
  db: Db,
  siteId: string,
  text: string,
  max: number,
): Promise<(PromptRow & { created: boolean }) | null> {
  return orAgain(() => db.oneOrNone(q.promptInsert, { siteId, text, max }));
}

export function listPrompts(db: Db, siteId: string, page: Page): Promise<Paged<PromptRow>> {
  return paged(db.any(q.promptList, { siteId, ...page }));
}

export function allPrompts(db: Db, siteId: string): Promise<{ id: string; text: string }[]> {
  return db.any(q.promptAll, { siteId });
}

export interface Page {
  limit: number;
  offset: number;
}
export interface Window {
  from: string | null;
  to: string | null;
}
export interface Paged<T> {
  rows: T[];
  total: number;
}

/** Rows of a query that carries `count(*) OVER ()` as `total`; an empty page past the end has none. */
async function paged<T>(rows: Promise<(T & { total: number })[]>): Promise<Paged<T>> {
  const all = await rows;
  return { rows: all.map(({ total: _, ...r }) => r as T), total: all[0]?.total ?? 0 };
}

export async function insertRun(
  db: Db,
  r: { siteId: string; trigger: 'manual' | 'schedule'; scheduledFor: Date | null; models: readonly string[] },
): Promise<string> {
  const row = await orAgain(() => db.oneOrNone<{ id: string }>(q.runInsert, r));
  return row!.id;
}

export function findRun(db: Db, runId: string): Promise<{ site_id: string; status: RunStatus } | null> {
  return db.oneOrNone(q.runFind, { runId });
}

/** Runs and audits still unfinished, to enqueue again when a worker starts. */
export function listUnfinished(db: Db): Promise<{ kind: 'run' | 'audit'; id: string }[]> {
  return db.any(q.unfinished);
}

export interface StartedRun {
  id: string;
  site_id: string;
  status: RunStatus;
  models: string[];
  /** True when this call moved the run from queued to running. */
  started: boolean;
}
export type RunStatus = 'queued' | 'running' | 'succeeded' | 'partial' | 'failed';

/** Starts a queued run with one pending answer per (prompt, model); null for an unknown run. */
export function startRun(
  db: Db,
  runId: string,
  prompts: readonly { id: string; text: string }[],
): Promise<StartedRun | null> {
  return db.oneOrNone<StartedRun>(q.runStart, { runId, prompts: JSON.stringify(prompts) });
}

export function finishRun(
  db: Db,
  runId: string,
  error: string | null,
): Promise<{ status: RunStatus; succeeded: number; failed: number; total: number }> {
  return db.one(q.runFinish, { runId, error });
}

export interface RunRow {
  id: string;
  trigger: 'manual' | 'schedule';
  status: RunStatus;
  scheduled_for: Date | null;
  models: string[];
  error: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  answers_total: number;
  answers_succeeded: number;
  answers_failed: number;
  prompts: number;
}

export function listRuns(db: Db, siteId: string, f: Page & Window & { runId?: string }): Promise<Paged<RunRow>> {
  return paged(db.any(q.runList, { siteId, runId: f.runId ?? null, ...f }));
}

export function pendingAnswers(db: Db, runId: string): Promise<{ id: string; prompt: string; model: string }[]> {
  return db.any(q.answersPending, { runId });
}

export interface AnswerFindings {
  text: string;
  channelId: string;
  mentions: readonly Mention[];
  citations: readonly Citation[];
  ownDomain: (domain: string) => boolean;
  inputTokens: number | null;
  outputTokens: number | null;
}

/** Stores an answer and its citations in one transaction; a retried job stores nothing twice. */
export function storeAnswer(db: Db, answerId: string, siteId: string, f: AnswerFindings): Promise<void> {
  const own = f.citations.map((c) => f.ownDomain(c.domain));
  return db.tx('geo-answer', async (t) => {
    const stored = await t.oneOrNone(q.answerSucceed, {
      id: answerId,
      text: f.text,
      channelId: f.channelId,
      mentions: JSON.stringify(f.mentions),
      brandPosition: f.mentions.find((m) => m.kind === 'brand')?.position ?? null,
      competitorMentioned: f.mentions.some((m) => m.kind === 'competitor'),
      citationCount: f.citations.length,
      citesOwnDomain: own.some(Boolean),
      inputTokens: f.inputTokens,
      outputTokens: f.outputTokens,
    });
    if (!stored || f.citations.length === 0) return;
    const rows = f.citations.map((c, i) => ({
      answer_id: answerId,
      site_id: siteId,
      url: c.url,
      domain: c.domain,
      source: c.source,
      own_domain: own[i],
    }));
    await t.none(`${pgp.helpers.insert(rows, citationColumns)} ON CONFLICT DO NOTHING`);
  });
}

export function failAnswer(db: Db, answerId: string, error: string): Promise<null> {
  return db.none(q.answerFail, { id: answerId, error: error.slice(0, 2000) });
}

export interface AnswerRow {
  id: string;
  run_id: string;
  prompt_id: string | null;
  prompt: string;
  model: string;
  status: 'pending' | 'succeeded' | 'failed';
  text: string | null;
  error: string | null;
  mentions: Mention[];
  brand_position: number | null;
  citations: { url: string; domain: string; source: Citation['source']; own_domain: boolean }[];
  created_at: Date;
  answered_at: Date | null;
}

export function listAnswers(
  db: Db,
  siteId: string,
  f: Page & Window & { runId?: string; model?: string; status?: string },
): Promise<Paged<AnswerRow>> {
  return paged(
    db.any(q.answerList, { siteId, runId: f.runId ?? null, model: f.model ?? null, status: f.status ?? null, ...f }),
  );
}

export interface CitedUrlRow {
  url: string;
  domain: string;
  own_domain: boolean;
  answers: number;
  models: string[];
  first_cited_at: Date;
  last_cited_at: Date;
}

export function listCitations(
  db: Db,
  siteId: string,
  f: Page & Window & { runId?: string; model?: string; domain?: string },
): Promise<Paged<CitedUrlRow>> {
  return paged(
    db.any(q.citationList, { siteId, runId: f.runId ?? null, model: f.model ?? null, domain: f.domain ?? null, ...f }),
  );
}

/** The additive counts behind the metrics, per day and model (sql/geo/metrics.sql). */
export interface MetricCounts {
  answers: number;
  brand_answers: number;
  entity_answers: number;
  own_citation_answers: number;
  citation_answers: number;
  position_sum: number;
}

export function metricCounts(
  db: Db,
  siteId: string,
  w: { from: string; to: string; tz: string },
): Promise<(MetricCounts & { day: string; model: string })[]> {
  return db.any(q.metrics, { siteId, ...w });
}

export function entityCounts(
  db: Db,
  siteId: string,
  w: { from: string; to: string },
): Promise<{ name: string; kind: 'brand' | 'competitor'; answers: number; position_sum: number }[]> {
  return db.any(q.competitorMetrics, { siteId, ...w });
}

export function runCoverage(
  db: Db,
  siteId: string,
  w: { from: string; to: string },
): Promise<{ runs: Partial<Record<RunStatus, number>>; models_answered: string[]; last_answer_at: Date | null }> {
  return db.one(q.runCoverage, { siteId, ...w });
}

export function trafficSources(
  db: Db,
  siteId: string,
  w: { from: string; to: string; tz: string },
): Promise<(VisitSource & { day: string; visits: number; users: string[] })[]> {
  return db.any(q.trafficSources, { siteId, ...w });
}

/** The values a visit's or touch's source can show up in (see visitAssistant). */
export interface VisitSource {
  channel: string | null;
  campaign_id: string | null;
  campaign_name: string | null;
}

export interface OutcomeRow extends VisitSource {
  touch: 'first' | 'last';
  metric: 'registrations' | 'activations' | 'paid_orders' | 'revenue';
  /** '' for counts. */
  currency: string;
  value: number;
}

/** Outcomes of the window by the source of each user's first and last touch (sql/geo/assistant-outcomes.sql). */
export function assistantOutcomes(db: Db, siteId: string, w: { from: string; to: string }): Promise<OutcomeRow[]> {
  return db.any(q.assistantOutcomes, { siteId, from: w.from, to: w.to });
}

export interface AuditCheck {
  id: string;
  status: 'pass' | 'warn' | 'fail';
  detail: string;
}

export interface AuditRow {
  id: string;
  site_id: string;
  idempotency_key: string;
  body_digest: Buffer;
  url: string;
  final_url: string | null;
  status: 'running' | 'completed' | 'failed';
  score: number | null;
  checks: AuditCheck[];
  error: string | null;
  created_at: Date;
  completed_at: Date | null;
}

export async function claimAudit(
  db: Db,
  a: { siteId: string; key: string; digest: Buffer; url: string },
): Promise<AuditRow & { created: boolean }> {
  return (await orAgain(() => db.oneOrNone<AuditRow & { created: boolean }>(q.auditClaim, a)))!;
}

export function findAudit(db: Db, id: string): Promise<AuditRow | null> {
  return db.oneOrNone<AuditRow>(q.auditFind, { id });
}

export async function finishAudit(
  db: Db,
  id: string,
  r: {
    status: 'completed' | 'failed';
    finalUrl: string | null;
    score: number;
    checks: readonly AuditCheck[];
    error: string | null;
  },
): Promise<void> {
  // One row (the notification) when it finished the audit, none when it was finished already.
  await db.any(q.auditFinish, { id, ...r, checks: JSON.stringify(r.checks) });
}

export function listAudits(
  db: Db,
  siteId: string,
  f: Page & Window & { status?: string; url?: string },
): Promise<Paged<AuditRow>> {
  return paged(db.any(q.auditList, { siteId, status: f.status ?? null, url: f.url ?? null, ...f }));
}

export function latestSiteChecks(
  db: Db,
  siteId: string,
  url: string | null,
): Promise<Omit<AuditRow, 'site_id' | 'idempotency_key' | 'body_digest' | 'created_at'>[]> {
  return db.any(q.siteChecks, { siteId, url });
}
