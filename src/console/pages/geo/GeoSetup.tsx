import { useState, type FormEvent } from 'react';
import { api, type ApiError, call } from '../../api/client.ts';
import type { GeoConfig, GeoEntity, GeoPrompt, Paged } from '../../api/types.ts';
import { ErrorNote, Field, Loading } from '../../ui/bits.tsx';
import { dateTime } from '../../ui/format.ts';
import { useLoad } from '../../ui/use-load.ts';

const list = (s: FormDataEntryValue | null) =>
  String(s ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

/** "Name, alias, alias" per line: the way a person writes competitors down. */
const entityLine = (e: GeoEntity) => [e.name, ...e.aliases].join(', ');
const parseEntities = (text: string): GeoEntity[] =>
  text
    .split('\n')
    .map(list)
    .filter((names) => names.length > 0)
    .map(([name, ...aliases]) => ({ name: name!, aliases }));

function ConfigForm({ siteId, config, onSaved }: { siteId: string; config: GeoConfig | null; onSaved: () => void }) {
  const [error, setError] = useState<ApiError | null>(null);
  const [saved, setSaved] = useState(false);
  const [scheduled, setScheduled] = useState(config?.schedule != null);
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    setError(null);
    setSaved(false);
    try {
      await call(
        api.PUT('/api/v1/sites/{siteId}/geo/config', {
          params: { path: { siteId } },
          body: {
            brand: { name: String(f.get('brand')).trim(), aliases: list(f.get('aliases')) },
            competitors: parseEntities(String(f.get('competitors'))),
            models: list(f.get('models')),
            locale: String(f.get('locale')).trim(),
            schedule: scheduled
              ? { cron: String(f.get('cron')).trim(), tz: String(f.get('tz')).trim() || undefined }
              : null,
          },
        }),
      );
      setSaved(true);
      onSaved();
    } catch (err) {
      setError(err as ApiError);
    }
  };
  // Field errors point into arrays (/models/1, /competitors/0/name): show them by their list.
  const under = (prefix: string) =>
    error?.problem?.errors
      ?.filter((x) => x.path === prefix || x.path.startsWith(`${prefix}/`))
      .map((x) => `${x.path}: ${x.message}`)
      .join('; ') || undefined;
  return (
    <form onSubmit={submit} className="card" aria-labelledby="geo-config-title">
      <h3 id="geo-config-title">Brand, competitors and models</h3>
      <div className="form-grid">
        <Field label="Brand name" error={under('/brand/name')}>
          {(id, d) => (
            <input
              id={id}
              name="brand"
              required
              maxLength={160}
              defaultValue={config?.brand.name}
              aria-describedby={d}
            />
          )}
        </Field>
        <Field
          label="Other names of the brand"
          hint="Separated by commas, e.g. Acme, Acme.io"
          error={under('/brand/aliases')}
        >
          {(id, d) => (
            <input id={id} name="aliases" defaultValue={config?.brand.aliases.join(', ')} aria-describedby={d} />
          )}
        </Field>
      </div>
      <Field
        label="Competitors"
        hint="One per line: its name, then any other names, separated by commas"
        error={under('/competitors')}
      >
        {(id, d) => (
          <textarea
            id={id}
            name="competitors"
            rows={4}
            defaultValue={config?.competitors.map(entityLine).join('\n')}
            aria-describedby={d}
          />
        )}
      </Field>
      <div className="form-grid">
        <Field
          label="Models"
          hint="Relay model ids, separated by commas (1 to 10); each is asked every prompt"
          error={under('/models')}
        >
          {(id, d) => (
            <input id={id} name="models" required defaultValue={config?.models.join(', ')} aria-describedby={d} />
          )}
        </Field>
        <Field label="Answer language (locale)" error={under('/locale')}>
          {(id, d) => (
            <input id={id} name="locale" required defaultValue={config?.locale ?? 'en-US'} aria-describedby={d} />
          )}
        </Field>
      </div>
      <fieldset>
        <legend>Schedule</legend>
        <label className="check">
          <input type="checkbox" checked={scheduled} onChange={(e) => setScheduled(e.target.checked)} /> Run on a
          schedule (at most once an hour)
        </label>
        {scheduled && (
          <div className="form-grid">
            <Field label="Cron pattern" hint="minute hour day month weekday, e.g. 0 6 * * *" error={under('/schedule')}>
              {(id, d) => (
                <input
                  id={id}
                  name="cron"
                  required
                  defaultValue={config?.schedule?.cron ?? '0 6 * * *'}
                  aria-describedby={d}
                />
              )}
            </Field>
            <Field label="Time zone of the pattern" hint="An IANA zone; empty for the server's">
              {(id, d) => (
                <input id={id} name="tz" defaultValue={config?.schedule?.tz ?? 'Asia/Shanghai'} aria-describedby={d} />
              )}
            </Field>
          </div>
        )}
      </fieldset>
      <ErrorNote error={error} />
      <button type="submit">Save configuration</button>
      <p role="status" className="small">
        {saved ? 'Configuration saved.' : ''}
      </p>
    </form>
  );
}

function Prompts({ siteId }: { siteId: string }) {
  const prompts = useLoad(
    () =>
      call<Paged<GeoPrompt>>(
        api.GET('/api/v1/sites/{siteId}/geo/prompts', { params: { path: { siteId }, query: { limit: '200' } } }),
      ),
    siteId,
  );
  const [error, setError] = useState<ApiError | null>(null);
  const add = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    setError(null);
    try {
      await call(
        api.POST('/api/v1/sites/{siteId}/geo/prompts', {
          params: { path: { siteId } },
          body: { text: String(new FormData(form).get('text')).trim() },
        }),
      );
      form.reset();
      prompts.reload();
    } catch (err) {
      setError(err as ApiError);
    }
  };
  return (
    <section className="card" aria-labelledby="prompts-title">
      <h3 id="prompts-title">Prompts</h3>
      <p className="muted small">
        The questions your customers ask an assistant; each run asks every one of every model.
      </p>
      <form onSubmit={add} className="filters">
        <Field label="New prompt" error={error?.field('/text')}>
          {(id, d) => (
            <input
              id={id}
              name="text"
              required
              minLength={3}
              maxLength={500}
              aria-describedby={d}
              placeholder="e.g. What is the best AI writing tool?"
            />
          )}
        </Field>
        <button type="submit">Add prompt</button>
      </form>
      <ErrorNote error={error?.field('/text') ? null : error} />
      <ErrorNote error={prompts.error} />
      {prompts.loading && !prompts.data && <Loading what="prompts" />}
      {prompts.data &&
        (prompts.data.data.length === 0 ? (
          <p>No prompts yet.</p>
        ) : (
          <ol className="prompt-list">
            {prompts.data.data.map((p) => (
              <li key={p.id}>
                {p.text} <span className="muted small">added {dateTime(p.created_at)}</span>
              </li>
            ))}
          </ol>
        ))}
      {prompts.data && <p className="small muted">{prompts.data.pagination.total} of at most 200 prompts.</p>}
    </section>
  );
}

export function GeoSetup({
  siteId,
  config,
  onSaved,
}: {
  siteId: string;
  config: GeoConfig | null;
  onSaved: () => void;
}) {
  return (
    <>
      <ConfigForm siteId={siteId} config={config} onSaved={onSaved} />
      <Prompts siteId={siteId} />
    </>
  );
}
