import { useState, type FormEvent } from 'react';
import { api, type ApiError, call } from '../api/client.ts';
import type { Credential, NewCredential } from '../api/types.ts';
import { SCOPES_BY_KIND, type CredentialKind, type Scope } from '../../auth/scopes.ts';
import { ErrorNote, Field, Loading } from '../ui/bits.tsx';
import { dateTime } from '../ui/format.ts';
import { SecretOnce } from '../ui/SecretOnce.tsx';
import { useLoad } from '../ui/use-load.ts';

function CreateForm({ siteId, onCreated }: { siteId: string; onCreated: (c: NewCredential) => void }) {
  const [kind, setKind] = useState<CredentialKind>('read');
  const [scopes, setScopes] = useState<Set<Scope>>(new Set());
  const [error, setError] = useState<ApiError | null>(null);
  const offered = [...SCOPES_BY_KIND[kind]];
  const toggle = (s: Scope) =>
    setScopes((prev) => {
      const next = new Set(prev);
      if (next.has(s)) next.delete(s);
      else next.add(s);
      return next;
    });
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setError(null);
    try {
      const c = await call(
        api.POST('/api/v1/sites/{siteId}/credentials', {
          params: { path: { siteId } },
          body: {
            name: String(form.get('name')),
            kind,
            scopes: [...scopes],
            expiresInDays: Number(form.get('expiresInDays')),
          },
        }),
      );
      setScopes(new Set());
      e.currentTarget?.reset();
      onCreated(c);
    } catch (err) {
      setError(err as ApiError);
    }
  };
  return (
    <form onSubmit={submit} className="card">
      <h3>New credential</h3>
      <div className="form-grid">
        <Field label="Name" error={error?.field('/name')}>
          {(id, d) => (
            <input
              id={id}
              name="name"
              required
              maxLength={160}
              aria-describedby={d}
              placeholder="e.g. backend ingest"
            />
          )}
        </Field>
        <Field label="Expires in (days)">
          {(id) => <input id={id} name="expiresInDays" type="number" min={1} max={365} defaultValue={90} required />}
        </Field>
      </div>
      <fieldset>
        <legend>Kind</legend>
        {(['read', 'ingest'] as const).map((k) => (
          <label key={k} className="check">
            <input
              type="radio"
              name="kind"
              value={k}
              checked={kind === k}
              onChange={() => {
                setKind(k);
                setScopes(new Set());
              }}
            />
            {k === 'read' ? 'Read: reads data (and may run GEO audits)' : 'Ingest: sends records, nothing else'}
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>Scopes a {kind} credential may hold</legend>
        <div className="scopes">
          {offered.map((s) => (
            <label key={s} className="check">
              <input type="checkbox" checked={scopes.has(s)} onChange={() => toggle(s)} /> <code>{s}</code>
            </label>
          ))}
        </div>
        <button type="button" className="link-button" onClick={() => setScopes(new Set(offered))}>
          Select all
        </button>
      </fieldset>
      <ErrorNote error={error} />
      <button type="submit" disabled={scopes.size === 0}>
        Create credential
      </button>
    </form>
  );
}

export function Credentials({ siteId }: { siteId: string }) {
  const list = useLoad(
    () => call(api.GET('/api/v1/sites/{siteId}/credentials', { params: { path: { siteId } } })),
    siteId,
  );
  const [fresh, setFresh] = useState<NewCredential | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const revoke = async (c: Credential) => {
    if (!confirm(`Revoke “${c.name}”? Calls with it fail at once.`)) return;
    try {
      await call(
        api.DELETE('/api/v1/sites/{siteId}/credentials/{credentialId}', {
          params: { path: { siteId, credentialId: c.id } },
        }),
      );
      list.reload();
    } catch (err) {
      setError(err as ApiError);
    }
  };
  return (
    <section aria-labelledby="cred-title">
      <h2 id="cred-title">Credentials</h2>
      <p className="muted">API keys of this site for your servers: read keys fetch data, ingest keys send records.</p>
      {fresh ? (
        <SecretOnce
          name={fresh.name}
          secret={fresh.secret}
          lost="Radar keeps only a digest; if you lose it, revoke this credential and create another."
          onDone={() => setFresh(null)}
        />
      ) : (
        <CreateForm
          siteId={siteId}
          onCreated={(c) => {
            setFresh(c);
            list.reload();
          }}
        />
      )}
      <ErrorNote error={list.error ?? error} />
      {list.loading && !list.data && <Loading what="credentials" />}
      {list.data && (
        <div className="table-wrap" tabIndex={0}>
          <table>
            <caption className="sr-only">Credentials of this site</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Kind</th>
                <th scope="col">Prefix</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((c) => (
                <tr key={c.id}>
                  <td>{c.name}</td>
                  <td>{c.kind}</td>
                  <td>
                    <code>{c.prefix}…</code>
                  </td>
                  <td className="small">{c.scopes.join(', ')}</td>
                  <td>{dateTime(c.createdAt)}</td>
                  <td>{dateTime(c.expiresAt)}</td>
                  <td>
                    {c.revokedAt ? (
                      `Revoked ${dateTime(c.revokedAt)}`
                    ) : (
                      <button
                        type="button"
                        className="danger"
                        onClick={() => revoke(c)}
                        aria-label={`Revoke ${c.name}`}
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {list.data.data.length === 0 && <p>No credentials yet.</p>}
        </div>
      )}
    </section>
  );
}
