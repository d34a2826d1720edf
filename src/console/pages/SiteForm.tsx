import { useState, type FormEvent } from 'react';
import type { ApiError } from '../api/client.ts';
import type { Site } from '../api/types.ts';
import { SITE_CATEGORIES } from '../../sites/categories.ts';
import { ErrorNote, Field } from '../ui/bits.tsx';

export interface SiteFields {
  name: string;
  websiteUrl: string;
  description: string;
  category: (typeof SITE_CATEGORIES)[number];
  publicMetrics: boolean;
}

/** The five public fields of a site, for submitting one and for editing it. */
export function SiteForm(props: { site?: Site; submitLabel: string; onSubmit: (f: SiteFields) => Promise<void> }) {
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const s = props.site;
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError(null);
    try {
      await props.onSubmit({
        name: String(form.get('name')),
        websiteUrl: String(form.get('websiteUrl')),
        description: String(form.get('description')),
        category: String(form.get('category')) as SiteFields['category'],
        publicMetrics: form.get('publicMetrics') === 'on',
      });
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} className="card form-grid">
      <Field label="Name" error={error?.field('/name')}>
        {(id, d) => (
          <input
            id={id}
            name="name"
            defaultValue={s?.name}
            required
            minLength={2}
            maxLength={160}
            aria-describedby={d}
          />
        )}
      </Field>
      <Field label="Website URL" error={error?.field('/websiteUrl')}>
        {(id, d) => (
          <input
            id={id}
            name="websiteUrl"
            type="url"
            defaultValue={s?.websiteUrl}
            required
            placeholder="https://"
            aria-describedby={d}
          />
        )}
      </Field>
      <Field label="Category" error={error?.field('/category')}>
        {(id, d) => (
          <select id={id} name="category" defaultValue={s?.category ?? 'other'} aria-describedby={d}>
            {SITE_CATEGORIES.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Description" error={error?.field('/description')}>
        {(id, d) => (
          <textarea
            id={id}
            name="description"
            defaultValue={s?.description}
            required
            minLength={2}
            maxLength={2000}
            rows={3}
            aria-describedby={d}
          />
        )}
      </Field>
      <label className="check">
        <input type="checkbox" name="publicMetrics" defaultChecked={s?.publicMetrics ?? false} /> Show this site's
        metrics publicly
      </label>
      <ErrorNote error={error && !error.problem?.errors ? error : null} />
      <button type="submit" disabled={busy}>
        {busy ? 'Saving…' : props.submitLabel}
      </button>
    </form>
  );
}
