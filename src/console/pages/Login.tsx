import { useState, type FormEvent } from 'react';
import { useLocation, useSearch } from 'wouter';
import { api, type ApiError, call } from '../api/client.ts';
import { useSession } from '../session.tsx';
import { ErrorNote, Field } from '../ui/bits.tsx';

/** Only a path of this console may be where login returns to, never another site. */
function safeNext(next: string | null): string {
  return next?.startsWith('/') && !next.startsWith('//') ? next : '/';
}

export function Login() {
  const search = useSearch();
  const [, navigate] = useLocation();
  const { refresh } = useSession();
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    try {
      await call(
        api.POST('/api/v1/auth/login', {
          body: { email: String(form.get('email')), password: String(form.get('password')) },
        }),
      );
      refresh();
      navigate(safeNext(new URLSearchParams(search).get('next')), { replace: true });
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" className="narrow">
      <h1>Log in to Radar</h1>
      <form onSubmit={submit} className="card">
        <Field label="Email">
          {(id) => <input id={id} name="email" type="email" autoComplete="username" required />}
        </Field>
        <Field label="Password">
          {(id) => <input id={id} name="password" type="password" autoComplete="current-password" required />}
        </Field>
        <ErrorNote error={error} />
        <button type="submit" disabled={busy}>
          {busy ? 'Logging in…' : 'Log in'}
        </button>
      </form>
    </main>
  );
}
