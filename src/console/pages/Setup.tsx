import { useState, type FormEvent } from 'react';
import { useLocation } from 'wouter';
import { api, type ApiError, call } from '../api/client.ts';
import { useSession } from '../session.tsx';
import { ErrorNote, Field } from '../ui/bits.tsx';

/** The first-run page `radar up` links to: the token is in the fragment, never sent anywhere but the setup call. */
export function Setup() {
  const [, navigate] = useLocation();
  const { refresh } = useSession();
  const token = new URLSearchParams(location.hash.slice(1)).get('token');
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const name = String(form.get('name') ?? '').trim();
    setBusy(true);
    try {
      await call(
        api.POST('/api/v1/setup', {
          body: {
            token: token ?? '',
            email: String(form.get('email')),
            password: String(form.get('password')),
            ...(name ? { name } : {}),
          },
        }),
      );
      history.replaceState(null, '', '/setup');
      refresh();
      navigate('/', { replace: true });
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" className="narrow">
      <h1>Set up Radar</h1>
      {!token ? (
        <p role="alert" className="error">
          This page needs the link <code>radar up</code> printed (it ends in <code>#token=…</code>).
        </p>
      ) : (
        <form onSubmit={submit} className="card">
          <p>Create the platform admin: the account that reviews sites and manages accounts.</p>
          <Field label="Name (optional)">{(id) => <input id={id} name="name" autoComplete="name" />}</Field>
          <Field label="Email" error={error?.field('/email')}>
            {(id, d) => (
              <input id={id} name="email" type="email" autoComplete="username" aria-describedby={d} required />
            )}
          </Field>
          <Field label="Password" hint="At least 8 characters" error={error?.field('/password')}>
            {(id, d) => (
              <input
                id={id}
                name="password"
                type="password"
                autoComplete="new-password"
                minLength={8}
                aria-describedby={d}
                required
              />
            )}
          </Field>
          <ErrorNote error={error} />
          <button type="submit" disabled={busy}>
            {busy ? 'Creating…' : 'Create admin and log in'}
          </button>
        </form>
      )}
    </main>
  );
}
