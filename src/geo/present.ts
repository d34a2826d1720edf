import type { AnswerRow, AuditRow, ConfigRow, CitedUrlRow, Page, Paged, PromptRow, RunRow } from './repo.ts';

import type { z } from 'zod';
import type { GeoAnswer, GeoAudit, GeoCitedUrl, GeoConfig, GeoPrompt, GeoRun } from './answers.ts';

const iso = (d: Date) => d.toISOString();
const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null);

/** The read envelope of CONTRACT §4: `next_offset` is null on the last page. */
export function pageOf<R, T>(page: Page, p: Paged<R>, present: (r: R) => T) {
  const next = page.offset + p.rows.length;
  return {
    data: p.rows.map(present),
    pagination: {
      limit: page.limit,
      offset: page.offset,
      total: p.total,
      next_offset: p.rows.length > 0 && next < p.total ? next : null,
    },
  };
}

export function presentConfig(c: ConfigRow): z.input<typeof GeoConfig> {
  return {
    brand: { name: c.brand_name, aliases: c.brand_aliases },
    competitors: c.competitors,
    models: c.models,
    locale: c.locale,
    schedule: c.schedule,
    created_at: iso(c.created_at),
    updated_at: iso(c.updated_at),
  };
}

export function presentPrompt(p: PromptRow): z.input<typeof GeoPrompt> {
  return { id: p.id, text: p.text, created_at: iso(p.created_at) };
}

export function presentRun(r: RunRow): z.input<typeof GeoRun> {
  return {
    id: r.id,
    trigger: r.trigger,
    status: r.status,
    scheduled_for: isoOrNull(r.scheduled_for),
    models: r.models,
    prompts: r.prompts,
    answers: {
      total: r.answers_total,
      succeeded: r.answers_succeeded,
      failed: r.answers_failed,
      pending: r.answers_total - r.answers_succeeded - r.answers_failed,
    },
    error: r.error,
    created_at: iso(r.created_at),
    started_at: isoOrNull(r.started_at),
    finished_at: isoOrNull(r.finished_at),
  };
}

export function presentAnswer(a: AnswerRow): z.input<typeof GeoAnswer> {
  return {
    id: a.id,
    run_id: a.run_id,
    prompt_id: a.prompt_id,
    prompt: a.prompt,
    model: a.model,
    status: a.status,
    text: a.text,
    error: a.error,
    brand: { mentioned: a.brand_position !== null, position: a.brand_position },
    mentions: a.mentions,
    citations: a.citations,
    created_at: iso(a.created_at),
    answered_at: isoOrNull(a.answered_at),
  };
}

export function presentCitedUrl(c: CitedUrlRow): z.input<typeof GeoCitedUrl> {
  return {
    url: c.url,
    domain: c.domain,
    own_domain: c.own_domain,
    answers: c.answers,
    models: c.models,
    first_cited_at: iso(c.first_cited_at),
    last_cited_at: iso(c.last_cited_at),
  };
}

/** An audit as POST geo/audits answers it and `reports` lists it. */
export function presentAudit(
  a: Pick<AuditRow, 'id' | 'url' | 'final_url' | 'status' | 'score' | 'checks' | 'error' | 'completed_at'> & {
    created_at?: Date;
  },
): z.input<typeof GeoAudit> {
  return {
    id: a.id,
    url: a.url,
    final_url: a.final_url,
    status: a.status,
    score: a.score,
    checks: a.checks,
    error: a.error,
    ...(a.created_at ? { created_at: iso(a.created_at) } : {}),
    completed_at: isoOrNull(a.completed_at),
  };
}
