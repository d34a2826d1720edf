import type { Db } from '../db/connection.ts';
import { metricsByModel, ratio } from './visibility.ts';
import { assistantFigures } from './attribution.ts';
import { assistantOutcomes, entityCounts, findConfig, metricCounts, runCoverage, trafficSources } from './repo.ts';
import { AI_ASSISTANTS, visitAssistant, type AssistantId } from './traffic.ts';
import { isoInstant } from '../analytics/calendar.ts';
import { presentWindow, type Window } from '../analytics/window.ts';

/** The window as the GEO queries take it: its exact ends in UTC, and its zone. */
const bounds = (w: Window) => ({ from: isoInstant(w.from), to: isoInstant(w.to), tz: w.tz });

/** The local dates of the window's days. */
const daysOf = (w: Window) => w.days.map((d) => d.label);

/**
 * GET geo/overview: the metrics over the window, overall and per model; how often the brand and
 * each competitor are named and where; and coverage: runs that succeeded out of runs finished
 * in the window, and configured models that answered at least once.
 */
export async function overview(db: Db, siteId: string, w: Window) {
  const [config, rows, entities, coverage] = await Promise.all([
    findConfig(db, siteId),
    metricCounts(db, siteId, bounds(w)),
    entityCounts(db, siteId, bounds(w)),
    runCoverage(db, siteId, bounds(w)),
  ]);
  const models = config?.models ?? [];
  const { overall, models: perModel } = metricsByModel(rows, models);
  const byName = new Map(entities.map((e) => [e.name, e]));
  const named = config
    ? [
        { name: config.brand_name, kind: 'brand' as const },
        ...config.competitors.map((c) => ({ name: c.name, kind: 'competitor' as const })),
      ]
    : [];
  const runs = coverage.runs;
  const finished = (runs.succeeded ?? 0) + (runs.partial ?? 0) + (runs.failed ?? 0);
  const answered = models.filter((m) => coverage.models_answered.includes(m));
  return {
    data: {
      overall,
      models: perModel,
      entities: named.map((e) => {
        const c = byName.get(e.name);
        return {
          name: e.name,
          kind: e.kind,
          answers: c?.answers ?? 0,
          mention_rate: ratio(c?.answers ?? 0, overall.answers),
          average_position: c ? c.position_sum / c.answers : null,
        };
      }),
      coverage: {
        runs: {
          succeeded: runs.succeeded ?? 0,
          partial: runs.partial ?? 0,
          failed: runs.failed ?? 0,
          in_progress: (runs.queued ?? 0) + (runs.running ?? 0),
          rate: ratio(runs.succeeded ?? 0, finished),
        },
        models: { configured: models, answered, rate: ratio(answered.length, models.length) },
      },
    },
    window: presentWindow(w),
    freshness: { as_of: new Date().toISOString(), last_answer_at: coverage.last_answer_at?.toISOString() ?? null },
  };
}

/** GET geo/trends: the metrics of every day of the window (in its time zone), overall and per model. */
export async function trends(db: Db, siteId: string, w: Window) {
  const [config, rows] = await Promise.all([findConfig(db, siteId), metricCounts(db, siteId, bounds(w))]);
  const models = config?.models ?? [];
  return {
    data: daysOf(w).map((day) => ({
      day,
      ...metricsByModel(
        rows.filter((r) => r.day === day),
        models,
      ),
    })),
    window: presentWindow(w),
  };
}

/**
 * GET geo/traffic: what AI assistants brought in. Per assistant: the visits it sent (a visit
 * counts for an assistant when its `properties.channel`, its `campaign_id` or its campaign's
 * name names one, see assistantOf) and their distinct users; of the users whose first touch it
 * was, their registrations, activations, paid orders and revenue in the window; and the paid
 * orders and revenue whose last touch before them it was (attribution.ts). Visits also per day.
 */
export async function traffic(db: Db, siteId: string, w: Window) {
  const [sources, outcomes] = await Promise.all([
    trafficSources(db, siteId, bounds(w)),
    assistantOutcomes(db, siteId, bounds(w)),
  ]);
  const perDay = new Map<string, Map<AssistantId, number>>();
  for (const s of sources) {
    const a = visitAssistant(s);
    if (!a) continue;
    let day = perDay.get(s.day);
    if (!day) perDay.set(s.day, (day = new Map()));
    day.set(a, (day.get(a) ?? 0) + s.visits);
  }
  const { assistants, currencies } = assistantFigures(sources, outcomes);
  return {
    data: {
      visits: assistants.reduce((n, a) => n + a.visits, 0),
      assistants,
      days: daysOf(w).map((day) => ({
        day,
        visits: [...(perDay.get(day)?.values() ?? [])].reduce((x, y) => x + y, 0),
        assistants: Object.fromEntries(AI_ASSISTANTS.map((a) => [a.id, perDay.get(day)?.get(a.id) ?? 0])),
      })),
    },
    currencies,
    window: presentWindow(w),
  };
}
