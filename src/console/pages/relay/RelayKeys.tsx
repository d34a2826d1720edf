import { useState, type FormEvent } from 'react';
import { api, type ApiError, call } from '../../api/client.ts';
import type { RelayGroup, RelayKey } from '../../api/types.ts';
import type { Site } from '../../api/types.ts';
import { ErrorNote, Field, Loading } from '../../ui/bits.tsx';
import { dateTime } from '../../ui/format.ts';
import { SecretOnce } from '../../ui/SecretOnce.tsx';
import { useLoad } from '../../ui/use-load.ts';
import { KeySettingsFields, readKeySettings } from './KeySettings.tsx';

/**
 * The models a new key may call: every model of the group, or some of them. A group holding
 * every model ('*') has no list to pick from, so its models are typed.
 */
function ModelPicker({ group, error }: { group: RelayGroup; error?: string }) {
  const [all, setAll] = useState(true);
  const open = group.models.includes('*');
  return (
    <fieldset>
      <legend>Models this key may call</legend>
      <label className="check">
        <input type="radio" name="scope" value="all" checked={all} onChange={() => setAll(true)} /> Every model of your
        group “{group.name}”{open ? ' (every model)' : `: ${group.models.join(', ')}`}
      </label>
      <label className="check">
        <input type="radio" name="scope" value="some" checked={!all} onChange={() => setAll(false)} /> Only some
      </label>
      {!all &&
        (open ? (
          <Field label="Model ids" hint="Separated by commas" error={error}>
            {(id, d) => <input id={id} name="typed" required aria-describedby={d} />}
          </Field>
        ) : (
          <div className="scopes">
            {group.models.map((m) => (
              <label key={m} className="check">
                <input type="checkbox" name="model" value={m} /> <code>{m}</code>
              </label>
            ))}
          </div>
        ))}
      {error && !open && <p className="field-error">{error}</p>}
    </fieldset>
  );
}

function modelsOf(f: FormData): string[] {
  if (f.get('scope') === 'all') return ['*'];
  const typed = String(f.get('typed') ?? '');
  return typed
    ? typed
        .split(',')
        .map((m) => m.trim())
        .filter(Boolean)
    : f.getAll('model').map(String);
}

function CreateKey({
  group,
  sites,
  onCreated,
}: {
  group: RelayGroup;
  sites: Site[];
  onCreated: (k: RelayKey) => void;
}) {
  const [error, setError] = useState<ApiError | null>(null);
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    setError(null);
    try {
      const key = await call<RelayKey>(
        api.POST('/api/v1/me/relay-keys', {
          body: { name: String(f.get('name')).trim(), models: modelsOf(f) as [string], ...readKeySettings(f) },
        }),
      );
      form.reset();
      onCreated(key);
    } catch (err) {
      setError(err as ApiError);
    }
  };
  const modelError = error?.problem?.errors?.find((x) => x.path.startsWith('/models'))?.message;
  return (
    <form className="card" onSubmit={submit} aria-labelledby="new-key-title">
      <h3 id="new-key-title">New relay key</h3>
      <Field label="Name" error={error?.field('/name')}>
        {(id, d) => <input id={id} name="name" required maxLength={160} aria-describedby={d} placeholder="e.g. ci" />}
      </Field>
      <ModelPicker group={group} error={modelError} />
      <details>
        <summary>Limits, budget, expiry and site (optional)</summary>
        <KeySettingsFields value={null} sites={sites} error={error} group={group} />
      </details>
      <ErrorNote error={error} />
      <button type="submit">Create key</button>
    </form>
  );
}

function EditKey({
  k,
  sites,
  group,
  onSaved,
}: {
  k: RelayKey;
  sites: Site[];
  group: RelayGroup | null;
  onSaved: () => void;
}) {
  const [error, setError] = useState<ApiError | null>(null);
  const [saved, setSaved] = useState(false);
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setError(null);
    setSaved(false);
    try {
      await call(
        api.PATCH('/api/v1/me/relay-keys/{keyId}', {
          params: { path: { keyId: k.id } },
          body: readKeySettings(new FormData(e.currentTarget)),
        }),
      );
      setSaved(true);
      onSaved();
    } catch (err) {
      setError(err as ApiError);
    }
  };
  return (
    <form className="card" onSubmit={submit} aria-label={`Settings of ${k.name}`}>
      <h3>Settings of “{k.name}”</h3>
      <KeySettingsFields value={k} sites={sites} error={error} group={group} />
      <ErrorNote error={error} />
      <button type="submit">Save settings of {k.name}</button>
      <span role="status" className="small">
        {saved ? ' Saved.' : ''}
      </span>
    </form>
  );
}

const settingsText = (k: RelayKey, sites: Site[]) =>
  [
    k.requestsPerMinute && `${k.requestsPerMinute} req/min`,
    k.tokensPerMinute && `${k.tokensPerMinute} tokens/min`,
    k.budget &&
      `budget ${k.budget.amount} ${k.budget.currency} per ${k.budget.period === 'total' ? 'all time' : k.budget.period}`,
    k.expiresAt && `expires ${dateTime(k.expiresAt)}`,
    k.siteId && `site ${sites.find((s) => s.id === k.siteId)?.name ?? k.siteId}`,
  ]
    .filter(Boolean)
    .join(' · ') || 'Group defaults';

export default function RelayKeys() {
  const group = useLoad(() => call<RelayGroup>(api.GET('/api/v1/me/relay-group')), 'group');
  const keys = useLoad(() => call<{ data: RelayKey[] }>(api.GET('/api/v1/me/relay-keys')), 'keys');
  const sites = useLoad(() => call<{ data: Site[] }>(api.GET('/api/v1/me/sites')), 'sites');
  const [fresh, setFresh] = useState<RelayKey | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const edited = keys.data?.data.find((k) => k.id === editing);
  const [error, setError] = useState<ApiError | null>(null);
  const siteList = sites.data?.data ?? [];
  const act = async (request: Promise<{ data?: unknown; error?: unknown; response: Response }>) => {
    setError(null);
    try {
      await call(request);
      keys.reload();
    } catch (err) {
      setError(err as ApiError);
    }
  };
  const setDisabled = (k: RelayKey, disabled: boolean) =>
    act(api.PATCH('/api/v1/me/relay-keys/{keyId}', { params: { path: { keyId: k.id } }, body: { disabled } }));
  const remove = (k: RelayKey) => {
    if (!confirm(`Delete “${k.name}”? It stops working within a second and cannot be enabled again.`)) return;
    void act(api.DELETE('/api/v1/me/relay-keys/{keyId}', { params: { path: { keyId: k.id } } }));
  };
  return (
    <section aria-labelledby="relay-keys-title">
      <h1 id="relay-keys-title">Relay keys</h1>
      <p className="muted">
        Keys for OpenAI-compatible clients: point an SDK at <code>{location.origin}/v1</code> with one of these.
      </p>
      <ErrorNote error={group.error} />
      {fresh ? (
        <SecretOnce
          name={fresh.name}
          secret={fresh.key!}
          lost="Radar keeps only a digest; if you lose it, delete this key and create another."
          onDone={() => setFresh(null)}
        />
      ) : (
        group.data && (
          <CreateKey
            group={group.data}
            sites={siteList}
            onCreated={(k) => {
              setFresh(k);
              keys.reload();
            }}
          />
        )
      )}
      <ErrorNote error={keys.error ?? error} />
      {keys.loading && !keys.data && <Loading what="relay keys" />}
      {keys.data &&
        (keys.data.data.length === 0 ? (
          <p>No relay keys yet.</p>
        ) : (
          <div className="table-wrap" tabIndex={0}>
            <table>
              <caption className="sr-only">Your relay keys, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Prefix</th>
                  <th scope="col">Models</th>
                  <th scope="col">Settings</th>
                  <th scope="col">Created</th>
                  <th scope="col">Status</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {keys.data.data.map((k) => (
                  <tr key={k.id}>
                    <th scope="row">{k.name}</th>
                    <td>
                      <code>{k.prefix}…</code>
                    </td>
                    <td className="small">
                      {k.models.includes('*') ? 'Every model of the group' : k.models.join(', ')}
                    </td>
                    <td className="small">{settingsText(k, siteList)}</td>
                    <td>{dateTime(k.createdAt)}</td>
                    <td>{k.disabledAt ? `Disabled ${dateTime(k.disabledAt)}` : 'Active'}</td>
                    <td className="actions">
                      <button
                        type="button"
                        className="secondary"
                        onClick={() => setEditing(k.id)}
                        aria-label={`Change settings of ${k.name}`}
                      >
                        Settings
                      </button>
                      <button
                        type="button"
                        className="secondary"
                        onClick={() => setDisabled(k, !k.disabledAt)}
                        aria-label={`${k.disabledAt ? 'Enable' : 'Disable'} ${k.name}`}
                      >
                        {k.disabledAt ? 'Enable' : 'Disable'}
                      </button>
                      <button
                        type="button"
                        className="danger"
                        onClick={() => remove(k)}
                        aria-label={`Delete ${k.name}`}
                      >
                        Delete
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
      {edited && <EditKey key={edited.id} k={edited} sites={siteList} group={group.data} onSaved={keys.reload} />}
    </section>
  );
}
