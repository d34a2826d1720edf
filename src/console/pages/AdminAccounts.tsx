import { useState, type FormEvent } from 'react';
import { api, type ApiError, call } from '../api/client.ts';
import type { Account, AdminAccount } from '../api/types.ts';
import { useSession } from '../session.tsx';
import { ErrorNote, Field, Loading } from '../ui/bits.tsx';
import { dateTime } from '../ui/format.ts';
import { useLoad } from '../ui/use-load.ts';

export default function AdminAccounts() {
  const { me } = useSession();
  const accounts = useLoad(() => call(api.GET('/api/v1/admin/accounts')), 'accounts');
  const [error, setError] = useState<ApiError | null>(null);
  const [created, setCreated] = useState<Account | null>(null);
  const create = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    setError(null);
    try {
      const name = String(f.get('name') ?? '').trim();
      const a = await call(
        api.POST('/api/v1/admin/accounts', {
          body: {
            email: String(f.get('email')),
            password: String(f.get('password')),
            admin: f.get('admin') === 'on',
            ...(name ? { name } : {}),
          },
        }),
      );
      setCreated(a);
      form.reset();
      accounts.reload();
    } catch (err) {
      setError(err as ApiError);
    }
  };
  const setDisabled = async (a: AdminAccount, disabled: boolean) => {
    if (disabled && !confirm(`Disable ${a.email}? Their sessions end and their sites' credentials stop working.`))
      return;
    try {
      await call(
        api.PATCH('/api/v1/admin/accounts/{accountId}', { params: { path: { accountId: a.id } }, body: { disabled } }),
      );
      accounts.reload();
    } catch (err) {
      setError(err as ApiError);
    }
  };
  return (
    <>
      <h1>Accounts</h1>
      <form onSubmit={create} className="card">
        <h2 className="h3">Create an account</h2>
        <div className="form-grid">
          <Field label="Email" error={error?.field('/email')}>
            {(id, d) => <input id={id} name="email" type="email" required aria-describedby={d} />}
          </Field>
          <Field label="Name (optional)">{(id) => <input id={id} name="name" />}</Field>
          <Field
            label="Initial password"
            hint="At least 8 characters; share it privately"
            error={error?.field('/password')}
          >
            {(id, d) => (
              <input
                id={id}
                name="password"
                type="password"
                autoComplete="new-password"
                minLength={8}
                required
                aria-describedby={d}
              />
            )}
          </Field>
        </div>
        <label className="check">
          <input type="checkbox" name="admin" /> Platform admin
        </label>
        <ErrorNote error={error} />
        <button type="submit">Create account</button>
        {created && <p role="status">Created {created.email}.</p>}
      </form>
      <ErrorNote error={accounts.error} />
      {accounts.loading && !accounts.data && <Loading what="accounts" />}
      {accounts.data && (
        <div className="table-wrap" tabIndex={0}>
          <table>
            <caption className="sr-only">Accounts</caption>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Name</th>
                <th scope="col">Role</th>
                <th scope="col">Relay group</th>
                <th scope="col">Created</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {accounts.data.data.map((a) => (
                <tr key={a.id}>
                  <td>{a.email}</td>
                  <td>{a.name ?? ''}</td>
                  <td>{a.admin ? 'admin' : 'account'}</td>
                  <td>
                    <code>{a.relayGroup}</code>
                  </td>
                  <td>{dateTime(a.createdAt)}</td>
                  <td>
                    {a.disabledAt ? (
                      <>
                        Disabled {dateTime(a.disabledAt)}{' '}
                        <button
                          type="button"
                          className="link-button"
                          onClick={() => setDisabled(a, false)}
                          aria-label={`Enable ${a.email}`}
                        >
                          Enable
                        </button>
                      </>
                    ) : a.id === me?.id ? (
                      'You'
                    ) : (
                      <button
                        type="button"
                        className="danger"
                        onClick={() => setDisabled(a, true)}
                        aria-label={`Disable ${a.email}`}
                      >
                        Disable
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
