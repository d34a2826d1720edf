/**
 * `npm run bench:analytics`: latency of each analytics view over a 90-day window of a large
 * site, beside the same figures computed by a plain SQL aggregate over the raw rows, in the
 * same run on the same database.
 *
 * 1. A fresh database on the local PostgreSQL: one large site with BENCH_EVENTS events (default
 *    10,000,000) spread over 100 days, with orders, payments, refunds, subscriptions, costs,
 *    expenses, campaigns, observations and summaries to match, one model call through the
 *    relay for every ten events (its key belongs to the site; 1% unpriced, 10% naming no
 *    customer), and BENCH_SMALL_SITES (100)
 *    small sites with BENCH_SMALL_EVENTS (5,000) events each. Loaded with set-based SQL
 *    (generate_series) straight into the ingest tables — not through HTTP.
 * 2. The rollups of every site, as the rollup worker runs them (src/analytics/rollup.ts), timed.
 * 3. Each view over HTTP against an in-process front door with a read credential,
 *    BENCH_REQUESTS times (default 40) after 3 warm-ups, over the last 90 days in
 *    Asia/Shanghai: p50 and p95. Then the plain SQL aggregate of each view over the raw rows,
 *    BENCH_RAW_RUNS times (default 3). The distinct-user figures of both are compared.
 * 4. Drops the database (kept, and its name printed, with BENCH_KEEP_DB=1).
 *
 * BENCH_REUSE_DB=<name> skips 1 and 2 and measures a database kept by an earlier run, after
 * migrating it and folding in the large site's pending changes: the
 * load takes many minutes, so a change to the views can be measured against the same rows
 * back to back. The database is kept.
 *
 * Environment: BENCH_EVENTS, BENCH_SMALL_SITES, BENCH_SMALL_EVENTS, BENCH_REQUESTS,
 * BENCH_RAW_RUNS, BENCH_KEEP_DB, BENCH_REUSE_DB, BENCH_FROM, BENCH_TO, BENCH_DATABASE_URL
 * (postgres://postgres@127.0.0.1:5432/postgres), BENCH_REDIS_URL (redis://127.0.0.1:6379).
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { parseConfig } from '../../config/env.ts';
import { insertAccount } from '../../src/accounts/repo.ts';
import { rollupSite } from '../../src/analytics/rollup.ts';
import { hashSecret, newSecret } from '../../src/auth/secrets.ts';
import { insertCredential } from '../../src/credentials/repo.ts';
import { createDb, type Db } from '../../src/db/connection.ts';
import { migrate } from '../../src/db/migrate.ts';
import { startFrontDoor } from '../../src/front-door.ts';
import { insertSite } from '../../src/sites/repo.ts';
import { envNumber, PG_BASE, REDIS_URL } from './env.ts';

const num = (name: string, fallback: number) => envNumber(name, fallback, 'count');

const EVENTS = num('BENCH_EVENTS', 10_000_000);
const SMALL_SITES = num('BENCH_SMALL_SITES', 100);
const SMALL_EVENTS = num('BENCH_SMALL_EVENTS', 5_000);
const REQUESTS = num('BENCH_REQUESTS', 40);
const RAW_RUNS = num('BENCH_RAW_RUNS', 3);
const REUSE_DB = process.env.BENCH_REUSE_DB || null;

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

const VIEWS = ['overview', 'acquisition', 'timeseries', 'finance', 'funnel', 'retention', 'unit-economics'] as const;

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

async function loadAndRollup(db: Db, tag: string): Promise<{ account: { id: string }; big: { id: string } }> {
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
  await load(db, big.id, EVENTS, 0);
  await loadRelay(db, big.id, EVENTS);
  for (const [i, s] of small.entries()) await load(db, s.id, SMALL_EVENTS, i + 1);
  await db.none('ANALYZE');
  log(
    `loaded ${EVENTS.toLocaleString('en')} events for the large site and ${SMALL_SITES} × ${SMALL_EVENTS.toLocaleString('en')} for small sites in ${ms(t0)} ms`,
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

async function main(): Promise<void> {
  const tag = `bench_analytics_${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  const url = new URL(PG_BASE);
  url.pathname = `/${REUSE_DB ?? `radar_${tag}`}`;
  const config = parseConfig({
    DATABASE_URL: url.toString(),
    REDIS_URL,
    PORT: '0',
    QUEUE_PREFIX: tag,
    LOG_LEVEL: 'warn',
    DATABASE_POOL_SIZE: '20',
  });
  await migrate(config.DATABASE_URL);
  const db = createDb({ url: config.DATABASE_URL, poolSize: 4, applicationName: 'radar-bench' });
  let door: Awaited<ReturnType<typeof startFrontDoor>> | null = null;
  try {
    const { account, big } = REUSE_DB ? await reuse(db) : await loadAndRollup(db, tag);
    const sizes = await db.one<{ counts: string; sets: string }>(
      `SELECT pg_size_pretty(pg_total_relation_size('analytics_counts')) AS counts, pg_size_pretty(pg_total_relation_size('analytics_sets')) AS sets`,
    );
    log(`rollup storage: analytics_counts ${sizes.counts}, analytics_sets ${sizes.sets}`);

    const secret = newSecret('rdr_read_');
    await insertCredential(db, {
      siteId: big.id,
      createdBy: account.id,
      name: 'bench',
      kind: 'read',
      scopes: ['analytics:read', 'finance:read'],
      prefix: secret.slice(0, 12),
      secretHash: hashSecret(secret),
      expiresInDays: 1,
    });
    door = await startFrontDoor(config);
    const base = `http://127.0.0.1:${door.port}/api/v1/sites/${big.id}/analytics`;
    const qs = new URLSearchParams({ ...WINDOW, tz: TZ }).toString();
    const get = async (view: string) => {
      const r = await fetch(`${base}/${view}?${qs}`, { headers: { authorization: `Bearer ${secret}` } });
      const body = await r.json();
      if (r.status !== 200) throw new Error(`${view}: ${r.status} ${JSON.stringify(body)}`);
      return body as { data: any; coverage: any };
    };

    const window = (await get('overview')).coverage.window as { from: string; to: string };
    const answers: Record<string, any> = {};
    const results: { view: string; p50: number; p95: number; rawP50: number; rawP95: number }[] = [];
    for (const view of VIEWS) {
      for (let i = 0; i < 3; i++) answers[view] = (await get(view)).data;
      const times: number[] = [];
      for (let i = 0; i < REQUESTS; i++) {
        const t = performance.now();
        await get(view);
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      const raw: number[] = [];
      for (let i = 0; i < RAW_RUNS; i++) {
        const t = performance.now();
        answers[`raw:${view}`] = await db.any(RAW_SQL[view]!, {
          site: big.id,
          from: window.from,
          to: window.to,
          at: new Date(Date.parse(window.to) - 1).toISOString(),
        });
        raw.push(performance.now() - t);
      }
      raw.sort((a, b) => a - b);
      results.push({
        view,
        p50: percentile(times, 50),
        p95: percentile(times, 95),
        rawP50: percentile(raw, 50),
        rawP95: percentile(raw, 95),
      });
      log(
        `${view}: p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms; raw aggregate p50 ${percentile(raw, 50).toFixed(0)} ms`,
      );
    }

    // The distinct-user figures, computed both ways, must agree exactly.
    const o = answers.overview;
    const rawO = answers['raw:overview'][0];
    const f = answers.funnel.steps.map((s: { users: number }) => s.users);
    const rawF = answers['raw:funnel'][0];
    const checks = [
      ['visitors', o.visitors, Number(rawO.visitors)],
      ['active_users', o.active_users, Number(rawO.active_users)],
      ['registrations', o.registrations, Number(rawO.registrations)],
      [
        'receipts',
        JSON.stringify(o.receipts),
        JSON.stringify(Object.fromEntries(Object.entries(rawO.receipts).sort())),
      ],
      [
        'funnel',
        JSON.stringify(f),
        JSON.stringify(
          [rawF.visit, rawF.registration_completed, rawF.activation_completed, rawF.order_paid].map(Number),
        ),
      ],
      [
        'finance',
        JSON.stringify(financeFigures(answers.finance)),
        JSON.stringify(rawFinanceFigures(answers['raw:finance'])),
      ],
      [
        'unit-economics customers',
        answers['unit-economics'].customers.count,
        Number(answers['raw:unit-economics'][0].customers),
      ],
    ] as const;
    for (const [name, mine, raw] of checks)
      log(`check ${name}: rollups ${mine} | raw ${raw} ${mine === raw ? 'OK' : 'MISMATCH'}`);

    process.stdout.write('\nview            p50 ms   p95 ms   raw p50 ms   raw p95 ms   speed-up (raw p50 / p95)\n');
    for (const r of results) {
      process.stdout.write(
        `${r.view.padEnd(14)} ${r.p50.toFixed(1).padStart(7)} ${r.p95.toFixed(1).padStart(8)} ${r.rawP50.toFixed(0).padStart(12)} ${r.rawP95.toFixed(0).padStart(12)}   ${(r.rawP50 / r.p95).toFixed(0).padStart(6)}×\n`,
      );
    }
    const failed = results.filter((r) => r.p95 >= 50 || r.rawP50 / r.p95 < 20);
    process.stdout.write(
      failed.length
        ? `\ntarget missed (p95 < 50 ms and ≥ 20× raw) by: ${failed.map((r) => r.view).join(', ')}\n`
        : '\nevery view: p95 < 50 ms and ≥ 20× faster than the raw aggregate\n',
    );
    if (checks.some(([, a, b]) => a !== b)) process.exitCode = 1;
  } finally {
    await door?.close();
    await db.$pool.end();
    const admin = createDb({ url: PG_BASE, poolSize: 1, applicationName: 'radar-bench-cleanup' });
    if (REUSE_DB || process.env.BENCH_KEEP_DB === '1') log(`kept database ${url.pathname.slice(1)}`);
    else await admin.none('DROP DATABASE IF EXISTS $1:name WITH (FORCE)', [url.pathname.slice(1)]);
    await admin.$pool.end();
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${tag}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  }
}

await main();
