import type { MetricCounts } from './repo.ts';

/** A rate with the counts it comes from; `value` is null when there is nothing to divide by. */
export interface Ratio {
  value: number | null;
  numerator: number;
  denominator: number;
}

/**
 * The GEO metrics of a set of succeeded answers:
 * - mention_rate: answers naming the brand / answers;
 * - share_of_voice: answers naming the brand / answers naming the brand or any competitor;
 * - citation_rate: answers citing the site's domain / answers citing anything;
 * - average_position: mean rank of the brand among the entities an answer names (1 = named
 *   first), over the answers naming it.
 */
export interface GeoMetrics {
  answers: number;
  mention_rate: Ratio;
  share_of_voice: Ratio;
  citation_rate: Ratio;
  average_position: number | null;
}

export function ratio(numerator: number, denominator: number): Ratio {
  return { value: denominator === 0 ? null : numerator / denominator, numerator, denominator };
}

export function noCounts(): MetricCounts {
  return {
    answers: 0,
    brand_answers: 0,
    entity_answers: 0,
    own_citation_answers: 0,
    citation_answers: 0,
    position_sum: 0,
  };
}

export function addCounts(into: MetricCounts, c: MetricCounts): MetricCounts {
  for (const k of Object.keys(into) as (keyof MetricCounts)[]) into[k] += c[k];
  return into;
}

export function metricsOf(c: MetricCounts): GeoMetrics {
  return {
    answers: c.answers,
    mention_rate: ratio(c.brand_answers, c.answers),
    share_of_voice: ratio(c.brand_answers, c.entity_answers),
    citation_rate: ratio(c.own_citation_answers, c.citation_answers),
    average_position: c.brand_answers === 0 ? null : c.position_sum / c.brand_answers,
  };
}

/** Overall and per-model metrics of count rows; every model in `models` appears, answered or not. */
export function metricsByModel(
  rows: readonly (MetricCounts & { model: string })[],
  models: readonly string[],
): { overall: GeoMetrics; models: Record<string, GeoMetrics> } {
  const overall = noCounts();
  const per = new Map<string, MetricCounts>(models.map((m) => [m, noCounts()]));
  for (const r of rows) {
    addCounts(overall, r);
    let m = per.get(r.model);
    if (!m) per.set(r.model, (m = noCounts()));
    addCounts(m, r);
  }
  const sorted = [...per.keys()].sort();
  return { overall: metricsOf(overall), models: Object.fromEntries(sorted.map((m) => [m, metricsOf(per.get(m)!)])) };
}
