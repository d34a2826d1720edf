/**
 * `npm run bench:analytics`: latency of each analytics view over a 90-day window of a large
 * site at several sizes of the same shape, one request at a time and under 32 concurrent
 * readers during ingest, beside the same figures computed by a plain SQL aggregate over the
 * raw rows.
 *
 * 1. One database per size of BENCH_SIZES (default 10000000), named BENCH_DB_PREFIX_<size>
 *    (`bench_x_1m`, `bench_x_10m`; a random prefix by default), refused if it exists: one large
 *    site with that many events spread over 100 days, with orders, payments, refunds,
 *    subscriptions, costs, expenses, campaigns, observations and summaries in proportion, one
 *    model call through the relay for every ten events (its key belongs to the site; 1%
 *    unpriced, 10% naming no customer), and BENCH_SMALL_SITES (100) small sites with
 *    BENCH_SMALL_EVENTS (5,000) events each. Loaded with set-based SQL (generate_series)
 *    straight into the ingest tables — not through HTTP — then rolled up as the rollup worker
 *    does (src/analytics/rollup.ts), timed.
 *    BENCH_REUSE_DB=<name>[,<name>…] instead measures databases kept by earlier runs, after
 *    migrating them and folding in the large site's pending changes: loading 10M events takes
 *    many minutes, so a change to the views can be measured against the same rows back to back.
 * 2. Each view over HTTP against an in-process front door per database with a read credential,
 *    over the last 90 days of data in Asia/Shanghai: 3 warm-ups, then BENCH_REQUESTS (40)
 *    rounds of one request to each database in turn, so the machine's other work falls on every
 *    size alike. p50 and p95 per view and size, the largest size's p95 over the smallest's
 *    (target ≤ 1.25), every p95 < 50 ms and finance's < 20 ms on the largest.
 * 3. The plain SQL aggregate of each view over the raw rows, BENCH_RAW_RUNS times (3; 0 skips
 *    them and the checks): distinct users, registrations, receipts, the funnel, finance and
 *    unit-economics customers must agree with the views.
 * 4. On the largest database, `radar serve` and `radar work` as processes: BENCH_READERS (32)
 *    readers ask the views (from the window's start until now) back to back while
 *    BENCH_LOAD_CLIENTS (4) clients post BENCH_BATCH (500) visit batches into the current
 *    hour, for BENCH_CONCURRENT_S (60) seconds: p50/p95 per view (target < 100 ms) and the
 *    ingest rate. The batches stay in the database (outside the window of 2 and 3). 0 readers
 *    skips it.
 * 5. Drops the databases it created, unless BENCH_KEEP_DB=1; reused ones are always kept.
 *
 * Environment: BENCH_SIZES, BENCH_VIEWS (all), BENCH_DB_PREFIX, BENCH_KEEP_DB, BENCH_REUSE_DB, BENCH_SMALL_SITES,
 * BENCH_SMALL_EVENTS, BENCH_REQUESTS, BENCH_RAW_RUNS, BENCH_READERS, BENCH_CONCURRENT_S,
 * BENCH_LOAD_CLIENTS, BENCH_BATCH, BENCH_FROM, BENCH_TO, BENCH_DATABASE_URL
 * (postgres://postgres@127.0.0.1:5432/postgres), BENCH_REDIS_URL (redis://127.0.0.1:6379).
 */
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { Redis } from 'ioredis';
import { Agent, request } from 'undici';
import { type Config, parseConfig } from '../../config/env.ts';
import { insertAccount } from '../../src/accounts/repo.ts';
import { rollupSite } from '../../src/analytics/rollup.ts';
import { hashSecret, newSecret } from '../../src/auth/secrets.ts';
import { insertCredential } from '../../src/credentials/repo.ts';
import { createDb, type Db } from '../../src/db/connection.ts';
import { migrate } from '../../src/db/migrate.ts';
import { type FrontDoor, startFrontDoor } from '../../src/front-door.ts';
import { insertSite } from '../../src/sites/repo.ts';
import { spawnRadar, type RadarProcess } from '../helpers/processes.ts';
import { envNumber, PG_BASE, REDIS_URL } from './env.ts';
import { visitBatch } from './visit-batch.ts';

const num = (name: string, fallback: number) => envNumber(name, fallback, 'count');

/** BENCH_SIZES: the large site's events, one database each (a comma-separated list). */
const SIZES = (process.env.BENCH_SIZES || '10000000').split(',').map((v) => {
  const n = Number(v.trim());
  if (!Number.isInteger(n) || n < 1000)
    throw new Error('BENCH_SIZES must be whole numbers of events from 1000, comma-separated');
  return n;
});
const SMALL_SITES = num('BENCH_SMALL_SITES', 100);
const SMALL_EVENTS = num('BENCH_SMALL_EVENTS', 5_000);
const REQUESTS = num('BENCH_REQUESTS', 40);
const RAW_RUNS = num('BENCH_RAW_RUNS', 3);
/** BENCH_REUSE_DB: databases kept by earlier runs, measured instead of loading (comma-separated). */
const REUSE_DBS = (process.env.BENCH_REUSE_DB ?? '')
  .split(',')
  .map((v) => v.trim())
  .filter(Boolean);
const READERS = num('BENCH_READERS', 32);
const CONCURRENT_S = envNumber('BENCH_CONCURRENT_S', 60, 'positive');
const LOAD_CLIENTS = num('BENCH_LOAD_CLIENTS', 4);
const BATCH = envNumber('BENCH_BATCH', 500, 'positive');

const TZ = 'Asia/Shanghai';
/** Data covers the 100 days before this instant; the views read the last 90 of them. */
const END = Date.parse('2026-11-21T00:00:00Z');
const DATA_DAYS = 100;
/** BENCH_FROM / BENCH_TO: another window, e.g. instants off the rollup buckets (ragged ends read raw). */
const WINDOW = { from: process.env.BENCH_FROM || '2026-08-23', to: process.env.BENCH_TO || '2026-11-21' };
const LOAD_CHUNK = 1_000_000;

const log = (msg: string) => process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${msg}\n`);
const ms = (t0: number) => Math.round(performance.now() - t0);

/**
 * Rows for one site. `h(n)` is a deterministic hash of the row number, so every run loads the
 * same data: users active across the whole range, visits in sessions of one user and six
 * hours, about one event in three with a channel and one in five with a campaign.
 */
const LOAD_SQL = {
  events: `
    INSERT INTO ingest_events (site_id, event_id, revision, source, occurred_at, event_type, external_user_id, campaign_id, session_id, channel, record, content_digest, batch_id, received_at)
    SELECT $(site), 'e' || i, 1, 'import', t, ty, 'u' || u, CASE WHEN h % 5 = 0 THEN 'c' || (h / 5 % 12) END,
      CASE WHEN ty = 'visit' THEN 's' || u || '-' || floor(extract(epoch FROM t) / 21600) END,
      CASE WHEN h % 3 = 0 THEN (ARRAY['search','social','email','referral','chatgpt.com','perplexity.ai','direct'])[(1 + h / 3 % 7)::int] END,
      '{}', '\\x00', 'bench', now()
    FROM (
      SELECT i, h, to_timestamp($(start) + i * $(step)::float8 + h % 600) AS t,
        (h / 7) % $(users) AS u,
        (ARRAY['visit','visit','visit','visit','visit','usage','usage','usage','workflow_completed','registration_completed','activation_completed','order_paid'])[(1 + h % 12)::int] AS ty
      FROM (SELECT i, (i::bigint * 2654435761 + $(salt)) % 4294967296 AS h FROM generate_series($(lo)::bigint, $(hi)::bigint) AS i) x
    ) y`,
  money: `
    INSERT INTO ingest_orders (site_id, order_id, revision, source, occurred_at, external_user_id, amount_minor, currency, status, plan_id, record, content_digest, batch_id, received_at)
    SELECT $(site), 'o' || i, 1, 'import', to_timestamp($(start) + i * $(step)::float8 * 30), 'u' || (h / 7) % $(users), 999 + h % 5000,
      CASE WHEN h % 4 = 0 THEN 'USD' ELSE 'CNY' END, CASE WHEN h % 10 < 9 THEN 'paid' ELSE 'pending' END, 'pro', '{}', '\\x00', 'bench', now()
    FROM (SELECT i, (i::bigint * 2246822519 + $(salt)) % 4294967296 AS h FROM generate_series(0, $(orders)::bigint - 1) AS i) x;
    INSERT INTO ingest_payments (site_id, payment_id, revision, source, occurred_at, order_id, external_user_id, amount_minor, currency, status, record, content_digest, batch_id, received_at)
    SELECT site_id, 'p' || substr(order_id, 2), 1, 'import', occurred_at + interval '1 minute', order_id, external_user_id, amount_minor, currency,
      CASE WHEN status = 'paid' THEN 'succeeded' ELSE 'failed' END, '{}', '\\x00', 'bench', now()
    FROM ingest_orders WHERE site_id = $(site);
    INSERT INTO ingest_refunds (site_id, refund_id, revision, source, occurred_at, payment_id, amount_minor, currency, status, record, content_digest, batch_id, received_at)
    SELECT site_id, 'r' || substr(payment_id, 2), 1, 'import', occurred_at + interval '2 days', payment_id, amount_minor / 2, currency, 'succeeded', '{}', '\\x00', 'bench', now()
    FROM ingest_payments WHERE site_id = $(site) AND status = 'succeeded' AND substr(payment_id, 2)::bigint % 50 = 0;
    INSERT INTO ingest_subscriptions (site_id, subscription_id, revision, source, occurred_at, external_user_id, plan_id, status, period_start, period_end, amount_minor, currency, record, content_digest, batch_id, received_at)
    SELECT site_id, 'sub' || substr(order_id, 2), 1, 'import', occurred_at, external_user_id, 'pro', CASE WHEN amount_minor % 7 = 0 THEN 'cancelled' ELSE 'active' END,
      occurred_at, occurred_at + interval '1 month', amount_minor, currency, '{}', '\\x00', 'bench', now()
    FROM ingest_orders WHERE site_id = $(site) AND substr(order_id, 2)::bigint % 10 = 0;
    INSERT INTO ingest_campaigns (site_id, campaign_id, revision, source, occurred_at, name, channel, status, starts_at, record, content_digest, batch_id, received_at)
    SELECT $(site), 'c' || c, 1, 'import', to_timestamp($(start)), 'Campaign ' || c, (ARRAY['search','social','email','paid'])[1 + c % 4], 'active', to_timestamp($(start)), '{}', '\\x00', 'bench', now()
    FROM generate_series(0, 11) AS c;
    INSERT INTO ingest_expenses (site_id, expense_id, revision, source, occurred_at, campaign_id, amount_minor, currency, period_start, period_end, cost_scope, record, content_digest, batch_id, received_at)
    SELECT $(site), 'x' || c || '-' || d, 1, 'import', to_timestamp($(start) + d * 86400), 'c' || c, 10000 + c * 100 + d, CASE WHEN c % 3 = 0 THEN 'USD' ELSE 'CNY' END,
      to_timestamp($(start) + d * 86400), to_timestamp($(start) + (d + 1) * 86400), (ARRAY['advertising','content','agency','other'])[1 + c % 4], '{}', '\\x00', 'bench', now()
    FROM generate_series(0, 11) AS c, generate_series(0, $(days) - 1) AS d;
    INSERT INTO ingest_costs (site_id, cost_id, revision, source, occurred_at, amount_minor, currency, period_start, period_end, category, record, content_digest, batch_id, received_at)
    SELECT $(site), 'k' || k || '-' || d, 1, 'import', to_timestamp($(start) + d * 86400 + 3600), 5000 + d, 'USD',
      to_timestamp($(start) + d * 86400), to_timestamp($(start) + (d + 1) * 86400), (ARRAY['usage','infrastructure','operations','other'])[1 + k], '{}', '\\x00', 'bench', now()
    FROM generate_series(0, 3) AS k, generate_series(0, $(days) - 1) AS d;
    INSERT INTO ingest_observations (site_id, observation_id, revision, source, occurred_at, target_ref, target_type, status, latency_ms, record, content_digest, batch_id, received_at)
    SELECT $(site), 'ob' || m, 1, 'import', to_timestamp($(start) + m * 300), 'home', 'website', CASE WHEN m % 97 = 0 THEN 'down' ELSE 'healthy' END, 120, '{}', '\\x00', 'bench', now()
    FROM generate_series(0, $(days) * 288 - 1) AS m;`,
  relay: `
    INSERT INTO relay_keys (id, name, key_hash, prefix, models, key_group, site_id)
    VALUES ($(site), 'bench', decode(md5($(site)::text), 'hex'), 'sk-bench', '{*}', 'default', $(site));
    INSERT INTO relay_usage (id, at, request_id, key_id, model, endpoint, stream, status, input_tokens, output_tokens, duration_ms, cost_nanos, currency, unpriced, site_id, customer)
    SELECT gen_random_uuid(), to_timestamp($(start) + i * $(step)::float8 * 10 + h % 600), 'r' || i, $(site), 'gpt-bench', 'chat', false, 200,
      100 + h % 500, 50 + h % 300, 500,
      CASE WHEN h % 100 <> 0 THEN 1000 + h % 100000 END, CASE WHEN h % 100 <> 0 THEN 'USD' END, h % 100 = 0, $(site),
      CASE WHEN h % 10 <> 0 THEN 'u' || (h / 7) % $(users) END
    FROM (SELECT i, (i::bigint * 3266489917 + $(salt)) % 4294967296 AS h FROM generate_series(0, $(calls)::bigint - 1) AS i) x;`,
};

/**
 * Plain SQL aggregates over the raw rows for each view: what answering from ingest tables
 * without rollups costs. Windows and day cuts in Asia/Shanghai, as the views'. Finance's
 * subscription figures are read at $(at), the window's last moment, as the view reads them;
 * new subscriptions come from the first-start table the ingest trigger keeps (a subscription's
 * stored row holds only its latest period).
 */
const RAW_SQL: Record<string, string> = {
  overview: `
    SELECT
      (SELECT count(DISTINCT coalesce(session_id, event_id)) FROM ingest_events WHERE site_id = $(site) AND occurred_at >= $(from) AND occurred_at < $(to) AND event_type = 'visit') AS visits,
      (SELECT count(DISTINCT external_user_id) FROM ingest_events WHERE site_id = $(site) AND occurred_at >= $(from) AND occurred_at < $(to) AND event_type = 'visit') AS visitors,
      (SELECT count(DISTINCT external_user_id) FROM ingest_events WHERE site_id = $(site) AND occurred_at >= $(from) AND occurred_at < $(to) AND event_type IN ('usage', 'workflow_completed')) AS active_users,
      (SELECT count(*) FROM ingest_events WHERE site_id = $(site) AND occurred_at >= $(from) AND occurred_at < $(to) AND event_type = 'registration_completed') AS registrations,
      (SELECT json_object_agg(currency, s) FROM (SELECT currency, sum(amount_minor) s FROM ingest_payments WHERE site_id = $(site) AND occurred_at >= $(from) AND occurred_at < $(to) AND status = 'succeeded' GROUP BY currency) p) AS receipts,
      (SELECT json_object_agg(currency, s) FROM (SELECT currency, sum(amount_minor) s FROM ingest_refunds WHERE site_id = $(site) AND occurred_at >= $(from) AND occurred_at < $(to) AND status = 'succeeded' GROUP BY currency) p) AS refunds,
      (SELECT count(*) FROM ingest_observations WHERE site_id = $(site) AND occurred_at >= $(from) AND occurred_at < $(to) AND status = 'healthy') AS healthy`,
  acquisition: `
    SELECT coalesce(e.channel, c.channel) AS channel, e.campaign_id,
      count(*) FILTER (WHERE e.event_type = 'visit') AS visit_events,
      count(*) FILTER (WHERE e.event_type = 'registration_completed') AS registrations,
      count(*) FILTER (WHERE e.event_type = 'activation_completed') AS activations
    FROM ingest_events e LEFT JOIN ingest_campaigns c ON c.site_id = e.site_id AND c.campaign_id = e.campaign_id
    WHERE e.site_id = $(site) AND e.occurred_at >= $(from) AND e.occurred_at < $(to)
    GROUP BY 1, 2`,
  timeseries: `
    SELECT (occurred_at AT TIME ZONE '${TZ}')::date AS day, count(*) FILTER (WHERE event_type = 'visit') AS visit_events,
      count(*) FILTER (WHERE event_type = 'registration_completed') AS registrations, count(*) AS events
    FROM ingest_events WHERE site_id = $(site) AND occurred_at >= $(from) AND occurred_at < $(to)
    GROUP BY 1 ORDER BY 1`,
  finance: `
    SELECT 'receipts' AS figure, currency, sum(amount_minor) FROM ingest_payments WHERE site_id = $(site) AND occurred_at >= $(from) AND occurred_at < $(to) AND status = 'succeeded' GROUP BY currency
    UNION ALL SELECT 'refunds', currency, sum(amount_minor) FROM ingest_refunds WHERE site_id = $(site) AND occurred_at >= $(from) AND occurred_at < $(to) AND status = 'succeeded' GROUP BY currency
    UNION ALL SELECT 'costs:' || category, currency, sum(amount) FROM (
      SELECT category, currency, amount_minor AS amount FROM ingest_costs WHERE site_id = $(site) AND occurred_at >= $(from) AND occurred_at < $(to)
      -- Relay spend (USD only here: 10^7 nanos a cent), each local day's rounded up.
      UNION ALL SELECT 'usage', currency, ceil(sum(cost_nanos) / 1e7) FROM relay_usage
        WHERE site_id = $(site) AND at >= $(from) AND at < $(to) AND cost_nanos IS NOT NULL GROUP BY (at AT TIME ZONE '${TZ}')::date, currency
    ) c GROUP BY category, currency
    UNION ALL SELECT 'expenses:' || cost_scope, currency, sum(amount_minor) FROM ingest_expenses WHERE site_id = $(site) AND occurred_at >= $(from) AND occurred_at < $(to) GROUP BY cost_scope, currency
    UNION ALL SELECT 'mrr', currency, sum(analytics_monthly_minor(amount_minor, period_start, period_end)) FROM ingest_subscriptions
      WHERE site_id = $(site) AND status = 'active' AND period_start <= $(at) AND period_end > $(at) AND period_end > period_start GROUP BY currency
    UNION ALL SELECT 'active', '', count(*) FROM ingest_subscriptions
      WHERE site_id = $(site) AND status = 'active' AND period_start <= $(at) AND period_end > $(at) AND period_end > period_start
    UNION ALL SELECT 'new', '', count(*) FROM analytics_subscription_starts WHERE site_id = $(site) AND started_at >= $(from) AND started_at < $(to)
    UNION ALL SELECT 'churned', '', count(*) FROM ingest_subscriptions
      WHERE site_id = $(site) AND status IN ('cancelled', 'expired') AND occurred_at >= $(from) AND occurred_at < $(to)`,
  funnel: `
    SELECT count(*) FILTER (WHERE v) AS visit, count(*) FILTER (WHERE v AND r) AS registration_completed,
      count(*) FILTER (WHERE v AND r AND a) AS activation_completed, count(*) FILTER (WHERE v AND r AND a AND p) AS order_paid
    FROM (
      SELECT external_user_id, bool_or(event_type = 'visit') v, bool_or(event_type = 'registration_completed') r,
        bool_or(event_type = 'activation_completed') a, bool_or(event_type = 'order_paid') p
      FROM ingest_events WHERE site_id = $(site) AND occurred_at >= $(from) AND occurred_at < $(to) AND external_user_id IS NOT NULL
      GROUP BY external_user_id
    ) u`,
  retention: `
    WITH firsts AS (
      SELECT external_user_id, min(occurred_at) AS registered_at FROM ingest_events
      WHERE site_id = $(site) AND event_type = 'registration_completed' AND external_user_id IS NOT NULL GROUP BY external_user_id
    ), cohort AS (
      SELECT external_user_id, date_trunc('week', registered_at AT TIME ZONE '${TZ}') AS week FROM firsts
      WHERE registered_at >= $(from) AND registered_at < $(to)
    ), active AS (
      SELECT DISTINCT external_user_id, date_trunc('week', occurred_at AT TIME ZONE '${TZ}') AS week FROM ingest_events
      WHERE site_id = $(site) AND occurred_at >= $(from) AND occurred_at < $(to) AND event_type IN ('usage', 'workflow_completed')
    )
    SELECT c.week AS cohort, a.week, count(*) AS users FROM cohort c JOIN active a ON a.external_user_id = c.external_user_id AND a.week > c.week
    GROUP BY 1, 2 ORDER BY 1, 2`,
  'unit-economics': `
    SELECT count(DISTINCT customer) AS customers FROM (
      SELECT customer FROM relay_usage WHERE site_id = $(site) AND at >= $(from) AND at < $(to)
      UNION ALL SELECT external_user_id FROM ingest_payments WHERE site_id = $(site) AND status = 'succeeded' AND occurred_at >= $(from) AND occurred_at < $(to)
      UNION ALL SELECT p.external_user_id FROM ingest_refunds r JOIN ingest_payments p ON p.site_id = r.site_id AND p.payment_id = r.payment_id
        WHERE r.site_id = $(site) AND r.status = 'succeeded' AND r.occurred_at >= $(from) AND r.occurred_at < $(to)
    ) x`,
};

/** The finance answer's figures as `figure:currency` → value, in the raw aggregate's terms. */
function financeFigures(d: any): Record<string, number> {
  const out: Record<string, number> = {};
  const money = (name: string, m: Record<string, number>) =>
    Object.entries(m).forEach(([cur, v]) => {
      out[`${name}:${cur}`] = v;
    });
  money('receipts', d.receipts);
  money('refunds', d.refunds);
  for (const [cat, m] of Object.entries(d.costs.by_category)) money(`costs:${cat}`, m as Record<string, number>);
  for (const [scope, m] of Object.entries(d.expenses.by_scope)) money(`expenses:${scope}`, m as Record<string, number>);
  money('mrr', d.mrr);
  for (const k of ['active', 'new', 'churned']) out[`${k}:`] = d.subscriptions[k];
  return Object.fromEntries(
    Object.entries(out)
      .filter(([, v]) => v !== 0)
      .sort(),
  );
}

function rawFinanceFigures(rows: { figure: string; currency: string; sum: string }[]): Record<string, number> {
  return Object.fromEntries(
    rows
      .map((r) => [`${r.figure}:${r.currency}`, Number(r.sum)] as const)
      .filter(([, v]) => v !== 0)
      .sort(),
  );
}

const ALL_VIEWS = ['overview', 'acquisition', 'timeseries', 'finance', 'funnel', 'retention', 'unit-economics'];
/** BENCH_VIEWS: the views measured (comma-separated; default all). */
const VIEWS = (process.env.BENCH_VIEWS || ALL_VIEWS.join(',')).split(',').map((v) => {
  if (!ALL_VIEWS.includes(v.trim())) throw new Error(`BENCH_VIEWS: unknown view ${v}; views: ${ALL_VIEWS.join(', ')}`);
  return v.trim();
});

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function load(db: Db, site: string, events: number, salt: number): Promise<void> {
  const start = (END - DATA_DAYS * 86_400_000) / 1000;
  const users = Math.max(100, Math.floor(events / 25));
  const base = { site, start, step: (DATA_DAYS * 86_400) / events, users, salt, days: DATA_DAYS };
  for (let lo = 0; lo < events; lo += LOAD_CHUNK) {
    await db.none(LOAD_SQL.events, { ...base, lo, hi: Math.min(events, lo + LOAD_CHUNK) - 1 });
  }
  await db.none(LOAD_SQL.money, { ...base, orders: Math.floor(events / 30), step: base.step });
}

/** The large site's model calls through the relay: one for every ten events. */
async function loadRelay(db: Db, site: string, events: number): Promise<void> {
  const start = (END - DATA_DAYS * 86_400_000) / 1000;
  const users = Math.max(100, Math.floor(events / 25));
  const calls = Math.floor(events / 10);
  await db.none(LOAD_SQL.relay, { site, start, step: (DATA_DAYS * 86_400) / events, users, salt: 0, calls });
}

/**
 * VACUUM ANALYZE of the whole database, then a checkpoint: vacuum dirties pages all over a
 * database of several GB (hint bits, visibility map), and their writes would otherwise land in
 * the middle of the measurements.
 */
async function vacuumAndSettle(db: Db): Promise<void> {
  await db.none('VACUUM ANALYZE');
  await db
    .none('CHECKPOINT')
    .catch((err: Error) => log(`no CHECKPOINT (${err.message}); vacuum's writes may overlap the measurements`));
}

/**
 * The large site and its owner in a database kept by an earlier run, with the large site's
 * pending changes folded in (what is measured; other sites' are left to the rollup jobs).
 */
async function reuse(db: Db): Promise<{ account: { id: string }; big: { id: string } }> {
  const big = await db.one<{ id: string; account_id: string }>(
    `SELECT id, account_id FROM sites WHERE name = 'Large site'`,
  );
  const t0 = performance.now();
  const folded = await rollupSite(db, big.id);
  // As after the load: what autovacuum does after the rollup or a migration's backfill.
  await vacuumAndSettle(db);
  log(`reusing the loaded database; folded in ${folded.dirty} pending hours of the large site in ${ms(t0)} ms`);
  return { account: { id: big.account_id }, big };
}

async function loadAndRollup(
  db: Db,
  tag: string,
  events: number,
): Promise<{ account: { id: string }; big: { id: string } }> {
  const account = await insertAccount(db, {
    email: `${tag}@bench.example`,
    name: 'Bench',
    passwordHash: null,
    admin: false,
  });
  const newSite = (name: string) =>
    insertSite(db, account.id, {
      name,
      websiteUrl: 'https://bench.example',
      description: 'benchmark',
      category: 'writing',
      publicMetrics: false,
    });
  const big = await newSite('Large site');
  const small = [];
  for (let i = 0; i < SMALL_SITES; i++) small.push(await newSite(`Small site ${i}`));

  let t0 = performance.now();
  await load(db, big.id, events, 0);
  await loadRelay(db, big.id, events);
  for (const [i, s] of small.entries()) await load(db, s.id, SMALL_EVENTS, i + 1);
  await db.none('ANALYZE');
  log(
    `loaded ${events.toLocaleString('en')} events for the large site and ${SMALL_SITES} × ${SMALL_EVENTS.toLocaleString('en')} for small sites in ${ms(t0)} ms`,
  );

  t0 = performance.now();
  const bigRollup = await rollupSite(db, big.id);
  const bigMs = ms(t0);
  t0 = performance.now();
  for (const s of small) await rollupSite(db, s.id);
  // What autovacuum does shortly after a load and a rollup, on every table: statistics, and the
  // visibility map that lets reads be index-only scans. Done by hand because a server may run
  // with autovacuum off (this machine's CI PostgreSQL does); the raw aggregates get it too.
  await vacuumAndSettle(db);
  log(
    `rollups: large site ${bigRollup.dirty + bigRollup.folded} hours and quarter hours in ${bigMs} ms; ${SMALL_SITES} small sites in ${ms(t0)} ms`,
  );
  return { account, big };
}

/** A database this run measures: loaded by it, or kept by an earlier run. */
interface Bench {
  name: string;
  db: Db;
  config: Config;
  big: { id: string };
  account: { id: string };
  /** The large site's events in the loaded range (the concurrent phase adds more, later). */
  events: number;
  door: FrontDoor;
  /** A view of the large site, over BENCH_FROM–BENCH_TO; throws unless 200. */
  get(view: string): Promise<{ data: any; coverage: any }>;
}

/** 1000000 → "1m", 500000 → "500k": database names and table columns. */
const sizeLabel = (n: number) =>
  n >= 1_000_000 && n % 1_000_000 === 0 ? `${n / 1_000_000}m` : n % 1_000 === 0 ? `${n / 1_000}k` : String(n);

function benchConfig(name: string, tag: string): Config {
  const url = new URL(PG_BASE);
  url.pathname = `/${name}`;
  return parseConfig({
    DATABASE_URL: url.toString(),
    REDIS_URL,
    PORT: '0',
    QUEUE_PREFIX: tag,
    LOG_LEVEL: 'warn',
    DATABASE_POOL_SIZE: '20',
  });
}

async function newCredential(b: Pick<Bench, 'db' | 'big' | 'account'>, kind: 'read' | 'ingest'): Promise<string> {
  const secret = newSecret(kind === 'read' ? 'rdr_read_' : 'rdr_ingest_');
  await insertCredential(b.db, {
    siteId: b.big.id,
    createdBy: b.account.id,
    name: `bench ${kind}`,
    kind,
    scopes: kind === 'read' ? ['analytics:read', 'finance:read'] : ['ingest:events:write', 'ingest:receipt:read'],
    prefix: secret.slice(0, 12),
    secretHash: hashSecret(secret),
    expiresInDays: 1,
  });
  return secret;
}

/** Loads (`events` given) or reuses database `name`, and serves it from an in-process front door. */
async function open(name: string, events: number | null, tag: string, created: string[]): Promise<Bench> {
  const config = benchConfig(name, tag);
  const { created_database } = await migrate(config.DATABASE_URL);
  if (created_database) created.push(name);
  if (events !== null && !created_database)
    throw new Error(`database ${name} exists: measure it with BENCH_REUSE_DB=${name}, or drop it to load it anew`);
  const db = createDb({ url: config.DATABASE_URL, poolSize: 4, applicationName: 'radar-bench' });
  log(`${name}: ${events === null ? 'reusing' : `loading ${events.toLocaleString('en')} events`}`);
  const { account, big } = events === null ? await reuse(db) : await loadAndRollup(db, tag, events);
  const { n } = await db.one<{ n: number }>(
    'SELECT count(*)::int AS n FROM ingest_events WHERE site_id = $1 AND occurred_at < $2',
    // A day past the data's end: loaded rows run a few minutes past it, the concurrent phase's are later.
    [big.id, new Date(END + 86_400_000)],
  );
  const sizes = await db.one<{ counts: string; sets: string; all: string }>(
    `SELECT pg_size_pretty(pg_total_relation_size('analytics_counts')) AS counts,
       pg_size_pretty(pg_total_relation_size('analytics_sets')) AS sets, pg_size_pretty(pg_database_size(current_database())) AS all`,
  );
  log(
    `${name}: ${n.toLocaleString('en')} events; analytics_counts ${sizes.counts}, analytics_sets ${sizes.sets}, database ${sizes.all}`,
  );
  const secret = await newCredential({ db, big, account }, 'read');
  const door = await startFrontDoor(config);
  const base = `http://127.0.0.1:${door.port}/api/v1/sites/${big.id}/analytics`;
  const qs = new URLSearchParams({ ...WINDOW, tz: TZ }).toString();
  const get = async (view: string) => {
    const r = await fetch(`${base}/${view}?${qs}`, { headers: { authorization: `Bearer ${secret}` } });
    const body = await r.json();
    if (r.status !== 200) throw new Error(`${name} ${view}: ${r.status} ${JSON.stringify(body)}`);
    return body as { data: any; coverage: any };
  };
  return { name, db, config, big, account, events: n, door, get };
}

type Times = Map<string, Map<string, number[]>>;

/** CPU time the whole machine has spent so far (every process: PostgreSQL, Redis, both sides of HTTP), ms. */
const machineBusyMs = () => cpus().reduce((sum, c) => sum + c.times.user + c.times.nice + c.times.sys + c.times.irq, 0);

/**
 * Every view of every database, one request at a time: per view, 3 warm-ups on each database,
 * then REQUESTS rounds of one request to each in turn, so whatever else the machine does falls
 * on every size alike and their ratio holds. Returns each view's sorted times per database,
 * and each database's last answers.
 */
async function sequential(benches: readonly Bench[]): Promise<{ times: Times; answers: Map<string, any>[] }> {
  const times: Times = new Map();
  const answers = benches.map(() => new Map<string, any>());
  for (const view of VIEWS) {
    for (const [i, b] of benches.entries()) for (let w = 0; w < 3; w++) answers[i]!.set(view, (await b.get(view)).data);
    const per = new Map(benches.map((b) => [b.name, [] as number[]]));
    // What one request costs the machine: how many concurrent readers its CPUs can serve at a latency.
    const cpu = new Map(benches.map((b) => [b.name, 0]));
    for (let r = 0; r < REQUESTS; r++)
      for (const b of benches) {
        const busy = machineBusyMs();
        const t = performance.now();
        await b.get(view);
        per.get(b.name)!.push(performance.now() - t);
        cpu.set(b.name, cpu.get(b.name)! + machineBusyMs() - busy);
      }
    for (const list of per.values()) list.sort((a, z) => a - z);
    times.set(view, per);
    log(
      `${view}: ${benches.map((b) => `${sizeLabel(b.events)} p50 ${percentile(per.get(b.name)!, 50).toFixed(1)} / p95 ${percentile(per.get(b.name)!, 95).toFixed(1)} ms, machine CPU ${(cpu.get(b.name)! / REQUESTS).toFixed(1)} ms a request`).join('; ')}`,
    );
  }
  return { times, answers };
}

/**
 * The plain SQL aggregates of one database, RAW_RUNS times each, and the figures both ways must
 * agree on: distinct users, registrations, receipts, the funnel, finance, unit-economics
 * customers. Returns whether they all agree.
 */
async function rawAndChecks(b: Bench, answers: Map<string, any>): Promise<boolean> {
  const window = (await b.get('overview')).coverage.window as { from: string; to: string };
  const raw = new Map<string, any>();
  const line: string[] = [];
  for (const view of VIEWS) {
    const runs: number[] = [];
    for (let i = 0; i < RAW_RUNS; i++) {
      const t = performance.now();
      raw.set(
        view,
        await b.db.any(RAW_SQL[view]!, {
          site: b.big.id,
          from: window.from,
          to: window.to,
          at: new Date(Date.parse(window.to) - 1).toISOString(),
        }),
      );
      runs.push(performance.now() - t);
    }
    line.push(
      `${view} ${percentile(
        runs.sort((x, y) => x - y),
        50,
      ).toFixed(0)}`,
    );
  }
  log(`${b.name}: raw aggregate p50 ms: ${line.join(', ')}`);
  const o = () => answers.get('overview');
  const rawO = () => raw.get('overview')[0];
  const rawF = () => raw.get('funnel')[0];
  /** [view, figure, () => [the view's, the raw aggregate's]]: checked when the view was measured. */
  const all: [string, string, () => readonly [unknown, unknown]][] = [
    ['overview', 'visitors', () => [o().visitors, Number(rawO().visitors)]],
    ['overview', 'active_users', () => [o().active_users, Number(rawO().active_users)]],
    ['overview', 'registrations', () => [o().registrations, Number(rawO().registrations)]],
    [
      'overview',
      'receipts',
      () => [JSON.stringify(o().receipts), JSON.stringify(Object.fromEntries(Object.entries(rawO().receipts).sort()))],
    ],
    [
      'funnel',
      'funnel',
      () => [
        JSON.stringify(answers.get('funnel').steps.map((s: { users: number }) => s.users)),
        JSON.stringify(
          [rawF().visit, rawF().registration_completed, rawF().activation_completed, rawF().order_paid].map(Number),
        ),
      ],
    ],
    [
      'finance',
      'finance',
      () => [
        JSON.stringify(financeFigures(answers.get('finance'))),
        JSON.stringify(rawFinanceFigures(raw.get('finance'))),
      ],
    ],
    [
      'unit-economics',
      'unit-economics customers',
      () => [answers.get('unit-economics').customers.count, Number(raw.get('unit-economics')[0].customers)],
    ],
  ];
  const checks = all.filter(([view]) => VIEWS.includes(view)).map(([, name, pair]) => [name, ...pair()] as const);
  for (const [name, mine, r] of checks)
    log(`${b.name}: check ${name}: rollups ${mine} | raw ${r} ${mine === r ? 'OK' : 'MISMATCH'}`);
  return checks.every(([, a, z]) => a === z);
}

/** The view × size table, the largest size's p95 over the smallest's, and the targets. */
function printScaling(benches: readonly Bench[], times: Times): void {
  const [small, large] = [benches[0]!, benches.at(-1)!];
  const cols = benches.map((b) => `${sizeLabel(b.events)} p50 / p95`.padStart(18)).join('');
  const ratio = benches.length > 1 ? `   ${sizeLabel(large.events)}/${sizeLabel(small.events)} p95` : '';
  process.stdout.write(`\nview          ${cols}${ratio}\n`);
  const missed: string[] = [];
  for (const view of VIEWS) {
    const per = times.get(view)!;
    const p95 = (b: Bench) => percentile(per.get(b.name)!, 95);
    const cells = benches
      .map((b) => `${percentile(per.get(b.name)!, 50).toFixed(1)} / ${p95(b).toFixed(1)}`.padStart(18))
      .join('');
    const r = p95(large) / p95(small);
    process.stdout.write(`${view.padEnd(14)}${cells}${benches.length > 1 ? `${r.toFixed(2).padStart(14)}×` : ''}\n`);
    for (const b of benches)
      if (p95(b) >= 50) missed.push(`${view} p95 ${p95(b).toFixed(1)} ms ≥ 50 at ${sizeLabel(b.events)}`);
    if (benches.length > 1 && r > 1.25)
      missed.push(`${view} ${r.toFixed(2)}× from ${sizeLabel(small.events)} to ${sizeLabel(large.events)} (> 1.25)`);
    if (view === 'finance' && p95(large) >= 20)
      missed.push(`finance p95 ${p95(large).toFixed(1)} ms ≥ 20 at ${sizeLabel(large.events)}`);
  }
  process.stdout.write(
    missed.length
      ? `\ntargets missed:\n${missed.map((m) => `  ${m}`).join('\n')}\n`
      : `\nevery view: p95 < 50 ms at every size, finance < 20 ms${benches.length > 1 ? ', largest within 25% of smallest' : ''}\n`,
  );
}

/**
 * READERS clients each asking the views one after another (each starting at its own view) of
 * the largest database's site, over BENCH_FROM until now, while LOAD_CLIENTS clients post
 * BATCH-visit batches into the current hour, for CONCURRENT_S seconds, against `radar serve`
 * and `radar work` (every queue) as separate processes. The batches stay in the database.
 */
async function concurrent(b: Bench, tag: string): Promise<void> {
  const ingestSecret = await newCredential(b, 'ingest');
  const readSecret = await newCredential(b, 'read');
  const env = {
    DATABASE_URL: b.config.DATABASE_URL,
    REDIS_URL,
    QUEUE_PREFIX: tag,
    PORT: '0',
    LOG_LEVEL: 'info',
    INGEST_SYNC_WAIT_MS: '10000',
    RATE_LIMIT_CREDENTIAL_PER_MIN: '0',
    INGEST_QUOTA_RECORDS_PER_MIN: '0',
    RESPONSE_CONTRACT_CHECK: '0',
  };
  const procs: RadarProcess[] = [];
  const agent = new Agent({
    connections: READERS + LOAD_CLIENTS,
    keepAliveTimeout: 60_000,
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  try {
    const door = await spawnRadar(['serve'], env);
    procs.push(door, await spawnRadar(['work'], env));
    const base = `http://127.0.0.1:${door.port}/api/v1/sites/${b.big.id}`;
    const ask = async (path: string, secret: string, body?: string) => {
      const res = await request(`${base}${path}`, {
        method: body ? 'POST' : 'GET',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body,
        dispatcher: agent,
      });
      return { status: res.statusCode, text: await res.body.text() };
    };
    const qs = new URLSearchParams({ from: WINDOW.from, tz: TZ }).toString();
    log(
      `${b.name}: ${READERS} readers and ${LOAD_CLIENTS} clients posting ${BATCH}-visit batches into the current hour for ${CONCURRENT_S} s`,
    );
    const start = performance.now();
    const stopAt = start + CONCURRENT_S * 1000;
    let applied = 0;
    let failed = 0;
    const fail = (what: string, r: { status: number; text: string }) => {
      if (++failed <= 3) console.error(`${what}: HTTP ${r.status} ${r.text.slice(0, 300)}`);
    };
    const writers = Array.from({ length: LOAD_CLIENTS }, async (_, c) => {
      for (let seq = 0; performance.now() < stopAt; seq++) {
        const r = await ask('/ingest/events', ingestSecret, visitBatch(`${tag}_${c}_${seq}`, BATCH));
        if (r.status === 200) applied += BATCH;
        else fail('ingest', r);
      }
    });
    const times = new Map(VIEWS.map((v) => [v as string, [] as number[]]));
    const readers = Array.from({ length: READERS }, async (_, c) => {
      for (let k = c; performance.now() < stopAt; k++) {
        const view = VIEWS[k % VIEWS.length]!;
        const t = performance.now();
        const r = await ask(`/analytics/${view}?${qs}`, readSecret);
        if (r.status === 200) times.get(view)!.push(performance.now() - t);
        else fail(view, r);
      }
    });
    await Promise.all([...writers, ...readers]);
    const elapsed = (performance.now() - start) / 1000;
    process.stdout.write(
      `\n${READERS} concurrent readers during ingest, ${sizeLabel(b.events)} events (p50 / p95 / max ms)\n`,
    );
    const missed: string[] = [];
    for (const [view, list] of times) {
      list.sort((a, z) => a - z);
      const p95 = percentile(list, 95);
      process.stdout.write(
        `${view.padEnd(14)} ${percentile(list, 50).toFixed(0).padStart(6)} / ${p95.toFixed(0).padStart(6)} / ${list.at(-1)!.toFixed(0).padStart(6)}   (n=${list.length})\n`,
      );
      if (p95 >= 100) missed.push(view);
    }
    process.stdout.write(
      `ingest: ${Math.round(applied / elapsed).toLocaleString('en')} records/s answered 200 (${LOAD_CLIENTS} clients, ${elapsed.toFixed(0)} s); ${failed} other answers\n`,
    );
    process.stdout.write(
      missed.length ? `target p95 < 100 ms missed by: ${missed.join(', ')}\n` : 'every view: p95 < 100 ms\n',
    );
    if (failed) process.exitCode = 1;
  } finally {
    await agent.close();
    await Promise.all(procs.map((p) => p.kill('SIGTERM')));
  }
}

async function main(): Promise<void> {
  const tag = `bench_analytics_${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  const prefix = process.env.BENCH_DB_PREFIX || `radar_${tag}`;
  const plan: [string, number | null][] = REUSE_DBS.length
    ? REUSE_DBS.map((name) => [name, null])
    : SIZES.map((n) => [`${prefix}_${sizeLabel(n)}`, n]);
  const keep = REUSE_DBS.length > 0 || process.env.BENCH_KEEP_DB === '1';
  const benches: Bench[] = [];
  /** Only what this run created is ever dropped. */
  const created: string[] = [];
  try {
    for (const [name, events] of plan) benches.push(await open(name, events, tag, created));
    benches.sort((a, z) => a.events - z.events);
    const { times, answers } = await sequential(benches);
    let agree = true;
    if (RAW_RUNS > 0) for (const [i, b] of benches.entries()) agree = (await rawAndChecks(b, answers[i]!)) && agree;
    printScaling(benches, times);
    if (READERS > 0) await concurrent(benches.at(-1)!, tag);
    if (!agree) process.exitCode = 1;
  } finally {
    const admin = createDb({ url: PG_BASE, poolSize: 1, applicationName: 'radar-bench-cleanup' });
    for (const b of benches) {
      await b.door.close();
      await b.db.$pool.end();
    }
    for (const name of keep ? [] : created) await admin.none('DROP DATABASE IF EXISTS $1:name WITH (FORCE)', [name]);
    if (keep) log(`kept databases ${[...new Set([...benches.map((b) => b.name), ...created])].join(', ')}`);
    await admin.$pool.end();
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${tag}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  }
}

await main();
