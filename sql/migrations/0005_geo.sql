-- GEO (CONTRACT §6): how a site shows up in AI assistants' answers, and audits of its pages.
--
-- geo_configs: one per site, replaced whole by PUT geo/config.
-- geo_prompts: the questions asked on every run.
-- geo_runs: one asking of every prompt of every configured model; `trigger` says who started it.
-- geo_answers: one per (run, prompt, model), created 'pending' when the run starts so a retried
--   job asks only what is still pending. Mention and citation figures are derived once, when the
--   answer is stored, so metrics are sums over plain columns.
-- geo_citations: the normalized URLs an answer cites.
-- geo_audits: one per (site, Idempotency-Key); `body_digest` tells a replay from a reuse.

CREATE TABLE geo_configs (
  site_id       uuid PRIMARY KEY REFERENCES sites(id) ON DELETE CASCADE,
  brand_name    text NOT NULL,
  brand_aliases text[] NOT NULL DEFAULT '{}',
  -- [{name, aliases: []}], in the order given.
  competitors   jsonb NOT NULL DEFAULT '[]',
  models        text[] NOT NULL CHECK (cardinality(models) > 0),
  locale        text NOT NULL,
  -- null: no scheduled runs; else {cron, tz}.
  schedule      jsonb,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE geo_prompts (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  site_id    uuid NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  text       text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (site_id, text)
);
CREATE INDEX geo_prompts_site_idx ON geo_prompts (site_id, created_at, id);

CREATE TABLE geo_runs (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  site_id       uuid NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  trigger       text NOT NULL CHECK (trigger IN ('manual', 'schedule')),
  status        text NOT NULL DEFAULT 'queued'
                  CHECK (status IN ('queued', 'running', 'succeeded', 'partial', 'failed')),
  -- The schedule's slot for scheduled runs: a slot delivered twice still makes one run.
  scheduled_for timestamptz,
  models        text[] NOT NULL,
  -- Why a run failed as a whole (e.g. no prompts); failures of single answers are on them.
  error         text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  started_at    timestamptz,
  finished_at   timestamptz,
  UNIQUE (site_id, scheduled_for)
);
CREATE INDEX geo_runs_site_idx ON geo_runs (site_id, created_at, id);

CREATE TABLE geo_answers (
  id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  run_id               uuid NOT NULL REFERENCES geo_runs(id) ON DELETE CASCADE,
  site_id              uuid NOT NULL,
  prompt_id            uuid REFERENCES geo_prompts(id) ON DELETE SET NULL,
  -- The prompt as asked, kept even if the prompt is later removed.
  prompt               text NOT NULL,
  model                text NOT NULL,
  status               text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  text                 text,
  error                text,
  channel_id           uuid,
  -- [{name, kind: brand|competitor, position, count}] in first-mention order.
  mentions             jsonb NOT NULL DEFAULT '[]',
  -- 1 when the brand is the first entity named; null when not named.
  brand_position       integer,
  competitor_mentioned boolean NOT NULL DEFAULT false,
  citation_count       integer NOT NULL DEFAULT 0,
  cites_own_domain     boolean NOT NULL DEFAULT false,
  input_tokens         integer,
  output_tokens        integer,
  created_at           timestamptz NOT NULL DEFAULT now(),
  answered_at          timestamptz,
  UNIQUE (run_id, prompt, model)
);
CREATE INDEX geo_answers_site_idx ON geo_answers (site_id, answered_at) WHERE status = 'succeeded';

CREATE TABLE geo_citations (
  answer_id  uuid NOT NULL REFERENCES geo_answers(id) ON DELETE CASCADE,
  site_id    uuid NOT NULL,
  url        text NOT NULL,
  domain     text NOT NULL,
  -- 'annotation' when the model's answer annotated it, else 'text'.
  source     text NOT NULL CHECK (source IN ('annotation', 'text')),
  own_domain boolean NOT NULL,
  PRIMARY KEY (answer_id, url)
);
CREATE INDEX geo_citations_site_idx ON geo_citations (site_id, url);

CREATE TABLE geo_audits (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  site_id         uuid NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  idempotency_key text NOT NULL,
  -- SHA-256 of the canonical JSON of the request body.
  body_digest     bytea NOT NULL,
  url             text NOT NULL,
  -- The URL the page was finally read from, after redirects.
  final_url       text,
  status          text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'completed', 'failed')),
  score           integer,
  -- [{id, status: pass|warn|fail, detail}]
  checks          jsonb NOT NULL DEFAULT '[]',
  error           text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  completed_at    timestamptz,
  UNIQUE (site_id, idempotency_key)
);
CREATE INDEX geo_audits_site_idx ON geo_audits (site_id, created_at, id);
