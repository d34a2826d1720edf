/** Minor units per currency: never converted, never summed across currencies. */
export type Money = Record<string, number>;

const SEP = '\u0000';

interface Entry {
  dim: string;
  currency: string;
  value: number;
}

/**
 * Additive figures of one period, keyed by metric, dim and currency: what a row of
 * analytics_counts holds, summed over the period's buckets. Coverage asks every day of a
 * window about a dozen counts, so reads walk stored entries without re-parsing keys.
 */
export class Figures {
  /** metric → `dim SEP currency` → entry */
  private readonly values = new Map<string, Map<string, Entry>>();

  add(metric: string, dim: string, currency: string, value: number): void {
    let m = this.values.get(metric);
    if (!m) this.values.set(metric, (m = new Map()));
    const k = dim + SEP + currency;
    const e = m.get(k);
    if (e) e.value += value;
    else m.set(k, { dim, currency, value });
  }

  addAll(other: Figures): void {
    for (const [metric, m] of other.values) for (const e of m.values()) this.add(metric, e.dim, e.currency, e.value);
  }

  private entries(metric: string): Iterable<Entry> {
    return this.values.get(metric)?.values() ?? [];
  }

  /** A count metric (all dims). */
  count(metric: string, dim?: string): number {
    let n = 0;
    for (const e of this.entries(metric)) if (dim === undefined || e.dim === dim) n += e.value;
    return n;
  }

  /** Whether any record of any family was counted (the records:<family> metrics). */
  hasRecords(): boolean {
    for (const [metric, m] of this.values) {
      if (metric.startsWith('records:')) for (const e of m.values()) if (e.value > 0) return true;
    }
    return false;
  }

  /** A money metric per currency (all dims). */
  money(metric: string): Money {
    const out: Money = {};
    for (const e of this.entries(metric)) out[e.currency] = (out[e.currency] ?? 0) + e.value;
    return sortedMoney(out);
  }

  /** A money metric per dim, then per currency. */
  moneyByDim(metric: string): Record<string, Money> {
    const out: Record<string, Money> = {};
    for (const e of this.entries(metric)) {
      const d = (out[e.dim || 'unspecified'] ??= {});
      d[e.currency] = (d[e.currency] ?? 0) + e.value;
    }
    return Object.fromEntries(
      Object.keys(out)
        .sort()
        .map((k) => [k, sortedMoney(out[k]!)]),
    );
  }
}

/** The same amounts with currencies in alphabetical order, as every answer lists them. */
export function sortedMoney(m: Money): Money {
  return Object.fromEntries(
    Object.keys(m)
      .sort()
      .map((k) => [k, m[k]!]),
  );
}

/** Adds `value` minor units of `currency` to `m`. */
export function addMoney(m: Money, currency: string, value: number): void {
  m[currency] = (m[currency] ?? 0) + value;
}

/** a − b − …, per currency; a currency only in a subtrahend goes negative. */
export function subtract(a: Money, ...bs: Money[]): Money {
  const out: Money = { ...a };
  for (const b of bs) for (const [c, v] of Object.entries(b)) out[c] = (out[c] ?? 0) - v;
  return sortedMoney(out);
}

export function scale(a: Money, factor: number): Money {
  return Object.fromEntries(Object.entries(a).map(([c, v]) => [c, v * factor]));
}

/** Every currency appearing in these maps, sorted. */
export function currenciesOf(maps: Iterable<Money>): string[] {
  const s = new Set<string>();
  for (const m of maps) for (const c of Object.keys(m)) s.add(c);
  return [...s].sort();
}

/** A share as a number with four decimals, or null when there is nothing to divide by. */
export function ratio(num: number, den: number): number | null {
  return den > 0 ? Math.round((num / den) * 10_000) / 10_000 : null;
}
