import { useState, type FormEvent, type ReactNode } from 'react';
import { api, type ApiError, call } from '../../api/client.ts';
import type { Channel, Price, RelayGroup, RelayModel } from '../../api/types.ts';
import type { Account } from '../../api/types.ts';
import { ErrorNote, Field, Loading } from '../../ui/bits.tsx';
import { dateTime, localInstant } from '../../ui/format.ts';
import { useLoad } from '../../ui/use-load.ts';

const list = (v: FormDataEntryValue | null) =>
  String(v ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
const optionalInt = (v: FormDataEntryValue | null) => (String(v ?? '').trim() ? Number(v) : null);

/** An admin form: sends, shows the problem or what was done, and reloads what it changed. */
function AdminForm({
  title,
  submitLabel,
  send,
  done,
  children,
}: {
  title: string;
  submitLabel: string;
  send: (f: FormData) => Promise<unknown>;
  done: (f: FormData) => string;
  children: (error: ApiError | null) => ReactNode;
}) {
  const [error, setError] = useState<ApiError | null>(null);
  const [message, setMessage] = useState('');
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    setError(null);
    setMessage('');
    try {
      await send(f);
      setMessage(done(f));
      form.reset();
    } catch (err) {
      setError(err as ApiError);
    }
  };
  return (
    <form className="card" onSubmit={submit} aria-label={title}>
      <h3>{title}</h3>
      {children(error)}
      <ErrorNote error={error} />
      <button type="submit">{submitLabel}</button>
      <p role="status" className="small">
        {message}
      </p>
    </form>
  );
}

/** Each section re-reads when any section changed something (a channel adds models, a price prices one). */
interface Shared {
  version: number;
  changed: () => void;
}

function Channels({ version, changed }: Shared) {
  const channels = useLoad(() => call<{ data: Channel[] }>(api.GET('/api/v1/relay/channels')), `channels/${version}`);
  return (
    <section aria-labelledby="channels-title">
      <h2 id="channels-title">Channels</h2>
      <p className="muted small">Upstream providers the relay forwards to; their API keys are never shown again.</p>
      <AdminForm
        title="Add a channel"
        submitLabel="Add channel"
        send={async (f) => {
          await call(
            api.POST('/api/v1/relay/channels', {
              body: {
                name: String(f.get('name')).trim(),
                baseUrl: String(f.get('baseUrl')).trim(),
                apiKey: String(f.get('apiKey')) || null,
                models: list(f.get('models')),
                protocols: f.getAll('protocol').map(String) as ['responses'],
                priority: Number(f.get('priority')),
                weight: Number(f.get('weight')),
              },
            }),
          );
          changed();
        }}
        done={(f) => `Added channel ${f.get('name')}.`}
      >
        {(error) => (
          <>
            <div className="form-grid">
              <Field label="Channel name" error={error?.field('/name')}>
                {(id, d) => <input id={id} name="name" required aria-describedby={d} />}
              </Field>
              <Field label="Base URL" hint="e.g. https://api.openai.com/v1" error={error?.field('/baseUrl')}>
                {(id, d) => <input id={id} name="baseUrl" type="url" required aria-describedby={d} />}
              </Field>
              <Field label="Upstream API key" hint="Optional" error={error?.field('/apiKey')}>
                {(id, d) => <input id={id} name="apiKey" type="password" autoComplete="off" aria-describedby={d} />}
              </Field>
              <Field label="Models it serves" hint="Separated by commas" error={error?.field('/models')}>
                {(id, d) => <input id={id} name="models" required aria-describedby={d} />}
              </Field>
              <Field label="Priority" hint="Higher is tried first" error={error?.field('/priority')}>
                {(id, d) => <input id={id} name="priority" type="number" defaultValue={0} aria-describedby={d} />}
              </Field>
              <Field label="Weight" hint="Share among channels of one priority" error={error?.field('/weight')}>
                {(id, d) => <input id={id} name="weight" type="number" min={1} defaultValue={1} aria-describedby={d} />}
              </Field>
            </div>
            <fieldset>
              <legend>Protocols it speaks</legend>
              {['responses', 'chat', 'embeddings'].map((p) => (
                <label key={p} className="check">
                  <input type="checkbox" name="protocol" value={p} defaultChecked /> {p}
                </label>
              ))}
            </fieldset>
          </>
        )}
      </AdminForm>
      <ErrorNote error={channels.error} />
      {channels.loading && !channels.data && <Loading what="channels" />}
      {channels.data && (
        <div className="table-wrap" tabIndex={0}>
          <table>
            <caption className="sr-only">Channels</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Base URL</th>
                <th scope="col">Models</th>
                <th scope="col">Protocols</th>
                <th scope="col" className="num">
                  Priority / weight
                </th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {channels.data.data.map((c) => (
                <tr key={c.id}>
                  <th scope="row">{c.name}</th>
                  <td>
                    <code>{c.baseUrl}</code>
                  </td>
                  <td className="small">{c.models.join(', ')}</td>
                  <td className="small">{c.protocols.join(', ')}</td>
                  <td className="num">
                    {c.priority} / {c.weight}
                  </td>
                  <td>{c.enabled ? 'Enabled' : 'Disabled'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {channels.data.data.length === 0 && <p>No channels yet: the relay has nothing to call.</p>}
        </div>
      )}
    </section>
  );
}

/** Newest first, as the API lists them: the first one already in effect is the one in force. */
function priceStates(prices: Price[], now: number): string[] {
  let current = false;
  return prices.map((p) => {
    if (Date.parse(p.effectiveAt) > now) return 'Scheduled';
    if (current) return 'Replaced';
    current = true;
    return 'In force';
  });
}

/** Every price one model has had or will have: what calls were metered with, and when. */
function PriceHistory({ models, version }: { models: RelayModel[]; version: number }) {
  const [picked, setPicked] = useState('');
  const model = picked || models.find((m) => m.price)?.id || models[0]?.id || '';
  const history = useLoad(
    () =>
      model
        ? call<{ data: Price[] }>(api.GET('/api/v1/relay/prices', { params: { query: { model } } }))
        : Promise.resolve({ data: [] }),
    `prices/${model}/${version}`,
  );
  const prices = history.data?.data ?? [];
  const states = priceStates(prices, Date.now());
  return (
    <section className="card" aria-labelledby="price-history-title">
      <h3 id="price-history-title">Price history</h3>
      <div className="form-grid">
        <Field label="Model">
          {(id) => (
            <select id={id} value={model} onChange={(e) => setPicked(e.target.value)}>
              {models.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.id}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <ErrorNote error={history.error} />
      {history.loading && !history.data && <Loading what="prices" />}
      {history.data &&
        (prices.length === 0 ? (
          <p>{model ? `${model} has never had a price.` : 'No models yet.'}</p>
        ) : (
          <div className="table-wrap" tabIndex={0}>
            <table>
              <caption className="sr-only">Prices of {model}, newest first, per million tokens</caption>
              <thead>
                <tr>
                  <th scope="col">From</th>
                  <th scope="col" className="num">
                    Input
                  </th>
                  <th scope="col" className="num">
                    Cached input
                  </th>
                  <th scope="col" className="num">
                    Output
                  </th>
                  <th scope="col">Currency</th>
                  <th scope="col">State</th>
                </tr>
              </thead>
              <tbody>
                {prices.map((p, i) => (
                  <tr key={`${p.effectiveAt}/${p.currency}`}>
                    <th scope="row">{dateTime(p.effectiveAt)}</th>
                    <td className="num">{p.input}</td>
                    <td className="num">{p.cachedInput}</td>
                    <td className="num">{p.output}</td>
                    <td>{p.currency}</td>
                    <td>{states[i]}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
    </section>
  );
}

function Models({ version, changed }: Shared) {
  const models = useLoad(() => call<{ data: RelayModel[] }>(api.GET('/api/v1/relay/models')), `models/${version}`);
  return (
    <section aria-labelledby="models-title">
      <h2 id="models-title">Models and prices</h2>
      <ErrorNote error={models.error} />
      {models.loading && !models.data && <Loading what="models" />}
      {models.data && (
        <div className="table-wrap" tabIndex={0}>
          <table>
            <caption className="sr-only">Models, their settings and the price in force</caption>
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Kind</th>
                <th scope="col">Efforts</th>
                <th scope="col">Price per million tokens (input / cached / output)</th>
                <th scope="col">Unpriced calls on a budget</th>
              </tr>
            </thead>
            <tbody>
              {models.data.data.map((m) => (
                <tr key={m.id}>
                  <th scope="row">
                    <code>{m.id}</code>
                  </th>
                  <td>{m.kind ?? 'chat (default)'}</td>
                  <td className="small">{m.efforts ? m.efforts.join(', ') || 'none' : 'default'}</td>
                  <td>
                    {m.price
                      ? `${m.price.input} / ${m.price.cachedInput} / ${m.price.output} ${m.price.currency}`
                      : 'Unpriced'}
                  </td>
                  <td>{m.allowUnpriced ? 'Allowed' : 'Refused'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {models.data && <PriceHistory models={models.data.data} version={version} />}
      <AdminForm
        title="Set a price"
        submitLabel="Set price"
        send={async (f) => {
          await call(
            api.POST('/api/v1/relay/prices', {
              body: {
                model: String(f.get('model')),
                currency: String(f.get('currency')).trim().toUpperCase(),
                input: String(f.get('input')).trim(),
                output: String(f.get('output')).trim(),
                ...(String(f.get('cached')).trim() ? { cachedInput: String(f.get('cached')).trim() } : {}),
                ...(f.get('effectiveAt') ? { effectiveAt: localInstant(f.get('effectiveAt')) } : {}),
              },
            }),
          );
          changed();
        }}
        done={(f) =>
          `Price of ${f.get('model')} set from ${f.get('effectiveAt') ? dateTime(localInstant(f.get('effectiveAt'))) : 'now'} on.`
        }
      >
        {(error) => (
          <div className="form-grid">
            <Field label="Model" error={error?.field('/model')}>
              {(id, d) => (
                <select id={id} name="model" required aria-describedby={d}>
                  {models.data?.data.map((m) => (
                    <option key={m.id} value={m.id}>
                      {m.id}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field label="Currency" error={error?.field('/currency')}>
              {(id, d) => (
                <input id={id} name="currency" required maxLength={3} defaultValue="USD" aria-describedby={d} />
              )}
            </Field>
            <Field label="Input, per million tokens" error={error?.field('/input')}>
              {(id, d) => <input id={id} name="input" required inputMode="decimal" aria-describedby={d} />}
            </Field>
            <Field
              label="Cached input, per million tokens"
              hint="Empty: the input price"
              error={error?.field('/cachedInput')}
            >
              {(id, d) => <input id={id} name="cached" inputMode="decimal" aria-describedby={d} />}
            </Field>
            <Field label="Output, per million tokens" error={error?.field('/output')}>
              {(id, d) => <input id={id} name="output" required inputMode="decimal" aria-describedby={d} />}
            </Field>
            <Field
              label="Takes effect"
              hint="Empty: now. Calls are metered with the price in force when they are made."
              error={error?.field('/effectiveAt')}
            >
              {(id, d) => <input id={id} name="effectiveAt" type="datetime-local" aria-describedby={d} />}
            </Field>
          </div>
        )}
      </AdminForm>
      <AdminForm
        title="Model settings"
        submitLabel="Save settings"
        send={async (f) => {
          const efforts = String(f.get('efforts'))
            .split(',')
            .map((e) => e.trim())
            .filter(Boolean);
          await call(
            api.POST('/api/v1/relay/models', {
              body: {
                id: String(f.get('id')).trim(),
                kind: f.get('kind') === 'embedding' ? 'embedding' : 'chat',
                allowUnpriced: f.get('allowUnpriced') === 'on',
                ...(efforts.length ? { efforts } : {}),
              },
            }),
          );
          changed();
        }}
        done={(f) => `Settings of ${String(f.get('id')).trim()} saved.`}
      >
        {(error) => (
          <div className="form-grid">
            <Field label="Model id" hint="A model a channel serves, or one to come" error={error?.field('/id')}>
              {(id, d) => (
                <>
                  <input id={id} name="id" required list={`${id}-known`} aria-describedby={d} />
                  <datalist id={`${id}-known`}>
                    {models.data?.data.map((m) => (
                      <option key={m.id} value={m.id} />
                    ))}
                  </datalist>
                </>
              )}
            </Field>
            <Field label="Kind" error={error?.field('/kind')}>
              {(id, d) => (
                <select id={id} name="kind" aria-describedby={d}>
                  <option value="chat">chat</option>
                  <option value="embedding">embedding</option>
                </select>
              )}
            </Field>
            <Field
              label="Accepted reasoning efforts"
              hint="Comma-separated; empty: the defaults"
              error={error?.field('/efforts')}
            >
              {(id, d) => <input id={id} name="efforts" aria-describedby={d} />}
            </Field>
            <label className="check">
              <input type="checkbox" name="allowUnpriced" /> Keys with a budget may call it while it has no price
            </label>
          </div>
        )}
      </AdminForm>
    </section>
  );
}

function Groups({ version, changed }: Shared) {
  const groups = useLoad(() => call<{ data: RelayGroup[] }>(api.GET('/api/v1/relay/groups')), `groups/${version}`);
  return (
    <section aria-labelledby="groups-title">
      <h2 id="groups-title">Groups</h2>
      <p className="muted small">
        A group is the set of models its accounts' keys may call, with default per-key limits.
      </p>
      <ErrorNote error={groups.error} />
      {groups.loading && !groups.data && <Loading what="groups" />}
      {groups.data && (
        <div className="table-wrap" tabIndex={0}>
          <table>
            <caption className="sr-only">Groups</caption>
            <thead>
              <tr>
                <th scope="col">Group</th>
                <th scope="col">Models</th>
                <th scope="col" className="num">
                  Requests / min
                </th>
                <th scope="col" className="num">
                  Tokens / min
                </th>
              </tr>
            </thead>
            <tbody>
              {groups.data.data.map((g) => (
                <tr key={g.name}>
                  <th scope="row">{g.name}</th>
                  <td className="small">{g.models.includes('*') ? 'Every model' : g.models.join(', ')}</td>
                  <td className="num">{g.requestsPerMinute ?? '—'}</td>
                  <td className="num">{g.tokensPerMinute ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <AdminForm
        title="Create or replace a group"
        submitLabel="Save group"
        send={async (f) => {
          const models = list(f.get('models'));
          await call(
            api.PUT('/api/v1/relay/groups/{group}', {
              params: { path: { group: String(f.get('group')).trim() } },
              body: {
                models: (models.length ? models : ['*']) as [string],
                requestsPerMinute: optionalInt(f.get('rpm')),
                tokensPerMinute: optionalInt(f.get('tpm')),
              },
            }),
          );
          changed();
        }}
        done={(f) => `Saved group ${f.get('group')}; its keys follow within a second.`}
      >
        {(error) => (
          <div className="form-grid">
            <Field label="Group name" error={error?.field('path.group')}>
              {(id, d) => <input id={id} name="group" required pattern="[A-Za-z0-9_.\-]{1,64}" aria-describedby={d} />}
            </Field>
            <Field
              label="Models"
              hint="Separated by commas; * or empty for every model"
              error={error?.field('/models')}
            >
              {(id, d) => <input id={id} name="models" aria-describedby={d} />}
            </Field>
            <Field label="Requests per minute per key" hint="Empty for none" error={error?.field('/requestsPerMinute')}>
              {(id, d) => <input id={id} name="rpm" type="number" min={1} aria-describedby={d} />}
            </Field>
            <Field label="Tokens per minute per key" hint="Empty for none" error={error?.field('/tokensPerMinute')}>
              {(id, d) => <input id={id} name="tpm" type="number" min={1} aria-describedby={d} />}
            </Field>
          </div>
        )}
      </AdminForm>
    </section>
  );
}

/** Moves an account (and so every key of it, within a second) into another group. */
function MoveAccount({ version, changed }: Shared) {
  const accounts = useLoad(() => call<{ data: Account[] }>(api.GET('/api/v1/admin/accounts')), `accounts/${version}`);
  const groups = useLoad(() => call<{ data: RelayGroup[] }>(api.GET('/api/v1/relay/groups')), `move/${version}`);
  const emailOf = (id: FormDataEntryValue | null) => accounts.data?.data.find((a) => a.id === id)?.email;
  return (
    <AdminForm
      title="Move an account into a group"
      submitLabel="Move account"
      send={async (f) => {
        await call(
          api.PUT('/api/v1/relay/accounts/{accountId}/group', {
            params: { path: { accountId: String(f.get('account')) } },
            body: { group: String(f.get('group')) },
          }),
        );
        changed();
      }}
      done={(f) => `Moved ${emailOf(f.get('account'))} into ${f.get('group')}; its keys follow within a second.`}
    >
      {(error) => (
        <div className="form-grid">
          <Field label="Account" error={error?.field('path.accountId')}>
            {(id, d) => (
              <select id={id} name="account" required aria-describedby={d}>
                {accounts.data?.data.map((a) => (
                  <option key={a.id} value={a.id}>
                    {a.email}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Into group" error={error?.field('/group')}>
            {(id, d) => (
              <select id={id} name="group" required aria-describedby={d}>
                {groups.data?.data.map((g) => (
                  <option key={g.name} value={g.name}>
                    {g.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
      )}
    </AdminForm>
  );
}

/** The platform admin's relay: channels, models with their prices, and groups. */
export default function RelayAdmin() {
  const [version, setVersion] = useState(0);
  const shared = { version, changed: () => setVersion((v) => v + 1) };
  return (
    <>
      <h1>Model relay</h1>
      <Channels {...shared} />
      <Models {...shared} />
      <Groups {...shared} />
      <MoveAccount {...shared} />
    </>
  );
}
