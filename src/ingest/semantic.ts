import type { Resource } from '../auth/scopes.ts';
import type { FieldError } from '../errors/http-error.ts';
import { ID_FIELD, type IngestRecord } from './schemas.ts';
import { compareUtc } from './timestamp.ts';

/**
 * The rules of CONTRACT §3 that a schema cannot express (422 `semantic_invalid`). Each
 * violation points at the offending field of the offending record.
 */

const FUTURE_TOLERANCE_MS = 24 * 3_600_000;

type Fields = Record<string, unknown>;

/** Ranges whose end may not come before their start, per resource. */
const RANGES: Partial<Record<Resource, readonly (readonly [start: string, end: string])[]>> = {
  subscriptions: [['period_start', 'period_end']],
  costs: [['period_start', 'period_end']],
  expenses: [['period_start', 'period_end']],
  summaries: [['period_start', 'period_end']],
  campaigns: [['starts_at', 'ends_at']],
};

/** Violations visible in the batch alone, checked by the front door before anything is stored. */
export function batchSemanticErrors(resource: Resource, records: readonly IngestRecord[], nowMs: number): FieldError[] {
  const errors: FieldError[] = [];
  const idField = ID_FIELD[resource];
  const firstIndex = new Map<string, number>();
  const latestAllowed = nowMs + FUTURE_TOLERANCE_MS;
  records.forEach((record, i) => {
    const r = record as Fields;
    const id = r[idField] as string;
    const seen = firstIndex.get(id);
    if (seen === undefined) firstIndex.set(id, i);
    else
      errors.push({
        path: `/records/${i}/${idField}`,
        message: `${idField} ${id} also appears at /records/${seen}; a batch holds each record once`,
      });

    if (Date.parse(r.occurred_at as string) > latestAllowed) {
      errors.push({ path: `/records/${i}/occurred_at`, message: 'is more than 24 hours in the future' });
    }
    for (const [start, end] of RANGES[resource] ?? []) {
      if (r[end] !== undefined && compareUtc(r[end] as string, r[start] as string) < 0) {
        errors.push({ path: `/records/${i}/${end}`, message: `${end} is before ${start}` });
      }
    }
    if (resource === 'summaries') {
      if (r.unit === 'minor_currency' && r.currency === undefined) {
        errors.push({ path: `/records/${i}/currency`, message: 'is required when unit is minor_currency' });
      } else if (r.unit === 'count' && r.currency !== undefined) {
        errors.push({ path: `/records/${i}/currency`, message: 'must be absent when unit is count' });
      }
    }
  });
  return errors;
}

/** Records that point at a record of another resource whose stored money they must agree with. */
export const REFERENCES = {
  payments: { field: 'order_id', resource: 'orders' },
  refunds: { field: 'payment_id', resource: 'payments' },
} as const satisfies Partial<Record<Resource, { field: string; resource: Resource }>>;

export type ReferencingResource = keyof typeof REFERENCES;

export function hasReferences(resource: Resource): resource is ReferencingResource {
  return resource in REFERENCES;
}

/** What the checks need of a stored order or payment. */
export interface StoredMoney {
  amount_minor: number;
  currency: string;
}

/**
 * Violations that need stored data, checked by the worker inside the apply transaction: a
 * payment or refund in another currency than its stored order or payment, a refund larger
 * than its stored payment. A reference to a record not stored (yet) is not checked.
 */
export function referenceErrors(
  resource: ReferencingResource,
  items: ReadonlyArray<{ index: number; record: IngestRecord }>,
  stored: ReadonlyMap<string, StoredMoney>,
): FieldError[] {
  const { field, resource: target } = REFERENCES[resource];
  const noun = target.slice(0, -1);
  const errors: FieldError[] = [];
  for (const { index, record } of items) {
    const r = record as Fields;
    const ref = r[field] as string;
    const s = stored.get(ref);
    if (!s) continue;
    if (r.currency !== s.currency) {
      errors.push({
        path: `/records/${index}/currency`,
        message: `${r.currency} differs from the currency ${s.currency} of stored ${noun} ${ref}`,
      });
    }
    if (resource === 'refunds' && (r.amount_minor as number) > s.amount_minor) {
      errors.push({
        path: `/records/${index}/amount_minor`,
        message: `${r.amount_minor} is larger than the ${s.amount_minor} of stored payment ${ref}`,
      });
    }
  }
  return errors;
}
