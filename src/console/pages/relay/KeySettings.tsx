import type { ApiError } from '../../api/client.ts';
import type { RelayKey } from '../../api/types.ts';
import type { Site } from '../../api/types.ts';
import { Field } from '../../ui/bits.tsx';

/** The per-key settings a form sends: each null when left empty (none; limits then come from the group). */
export interface KeySettingsBody {
  requestsPerMinute: number | null;
  tokensPerMinute: number | null;
  budget: { amount: string; currency: string; period: 'day' | 'month' | 'total' } | null;
  expiresAt: string | null;
  siteId: string | null;
}

/** An ISO instant as a datetime-local value in the browser's zone. */
function localInput(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

export function readKeySettings(f: FormData): KeySettingsBody {
  const str = (k: string) => String(f.get(k) ?? '').trim();
  const int = (k: string) => (str(k) ? Number(str(k)) : null);
  return {
    requestsPerMinute: int('rpm'),
    tokensPerMinute: int('tpm'),
    budget: str('budget')
      ? {
          amount: str('budget'),
          currency: str('currency').toUpperCase(),
          period: str('period') as 'day' | 'month' | 'total',
        }
      : null,
    // datetime-local is the browser's wall clock; the API takes an instant.
    expiresAt: str('expires') ? new Date(str('expires')).toISOString() : null,
    siteId: str('site') || null,
  };
}

/** Rate limits, budget, expiry and site of a relay key: the same fields to create one and to change one. */
export function KeySettingsFields({
  value,
  sites,
  error,
  group,
}: {
  value: RelayKey | null;
  sites: Site[];
  error: ApiError | null;
  group: { requestsPerMinute: number | null; tokensPerMinute: number | null } | null;
}) {
  const fromGroup = (n: number | null | undefined) => (n ? `Empty: the group's ${n}` : 'Empty: no limit of its own');
  return (
    <div className="form-grid">
      <Field
        label="Requests per minute"
        hint={fromGroup(group?.requestsPerMinute)}
        error={error?.field('/requestsPerMinute')}
      >
        {(id, d) => (
          <input
            id={id}
            name="rpm"
            type="number"
            min={1}
            defaultValue={value?.requestsPerMinute ?? ''}
            aria-describedby={d}
          />
        )}
      </Field>
      <Field
        label="Tokens per minute"
        hint={fromGroup(group?.tokensPerMinute)}
        error={error?.field('/tokensPerMinute')}
      >
        {(id, d) => (
          <input
            id={id}
            name="tpm"
            type="number"
            min={1}
            defaultValue={value?.tokensPerMinute ?? ''}
            aria-describedby={d}
          />
        )}
      </Field>
      <Field label="Budget" hint="A decimal amount; empty for none" error={error?.field('/budget/amount')}>
        {(id, d) => (
          <input
            id={id}
            name="budget"
            inputMode="decimal"
            pattern="\d{1,12}(\.\d{1,9})?"
            defaultValue={value?.budget?.amount ?? ''}
            aria-describedby={d}
          />
        )}
      </Field>
      <Field label="Budget currency" error={error?.field('/budget/currency')}>
        {(id, d) => (
          <input
            id={id}
            name="currency"
            maxLength={3}
            defaultValue={value?.budget?.currency ?? 'USD'}
            aria-describedby={d}
          />
        )}
      </Field>
      <Field label="Budget period">
        {(id) => (
          <select id={id} name="period" defaultValue={value?.budget?.period ?? 'month'}>
            <option value="day">Per UTC day</option>
            <option value="month">Per UTC month</option>
            <option value="total">In total</option>
          </select>
        )}
      </Field>
      <Field label="Expires at" hint="Your local time; empty for never" error={error?.field('/expiresAt')}>
        {(id, d) => (
          <input
            id={id}
            name="expires"
            type="datetime-local"
            defaultValue={localInput(value?.expiresAt ?? null)}
            aria-describedby={d}
          />
        )}
      </Field>
      <Field label="Used for site" error={error?.field('/siteId')}>
        {(id, d) => (
          <select id={id} name="site" defaultValue={value?.siteId ?? ''} aria-describedby={d}>
            <option value="">No site</option>
            {sites.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        )}
      </Field>
    </div>
  );
}
