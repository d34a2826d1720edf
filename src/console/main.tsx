import { type ReactNode, StrictMode, Suspense, useMemo } from 'react';
import { createRoot } from 'react-dom/client';
import { Link, Redirect, Route, Switch, useLocation } from 'wouter';
import { api, call, loginUrl } from './api/client.ts';
import { Login } from './pages/Login.tsx';
import { Setup } from './pages/Setup.tsx';
import { isAnalyticsPath } from './pages/analytics-view.ts';
import { lazyPage } from './ui/lazy-page.ts';
import { SessionContext, useSession } from './session.tsx';
import { Loading } from './ui/bits.tsx';
import { useLoad } from './ui/use-load.ts';
import './styles.css';

// Pages past login load on demand: the first paint needs only the shell.
const Sites = lazyPage(() => import('./pages/Sites.tsx'));
const SitePages = lazyPage(() => import('./pages/SitePages.tsx'));
const AdminAccounts = lazyPage(() => import('./pages/AdminAccounts.tsx'));
const AdminReview = lazyPage(() => import('./pages/AdminReview.tsx'));
const RelayKeys = lazyPage(() => import('./pages/relay/RelayKeys.tsx'));
const RelayAdmin = lazyPage(() => import('./pages/relay/RelayAdmin.tsx'));
const RelayUsage = lazyPage(() => import('./pages/RelayUsage.tsx'));

function Shell() {
  const { me, refresh } = useSession();
  const [, navigate] = useLocation();
  const logout = async () => {
    await api.POST('/api/v1/auth/logout');
    refresh();
    navigate('/login');
  };
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <Link href="/" className="brand">
          Radar
        </Link>
        <nav aria-label="Main">
          <Link href="/">Sites</Link>
          <Link href="/relay/keys">Relay keys</Link>
          <Link href="/relay/usage">Model usage</Link>
          {me?.admin && <Link href="/admin/review">Review queue</Link>}
          {me?.admin && <Link href="/admin/accounts">Accounts</Link>}
          {me?.admin && <Link href="/admin/relay">Relay</Link>}
        </nav>
        <div className="who">
          <span className="muted small">{me?.email}</span>
          <button type="button" className="link-button" onClick={logout}>
            Log out
          </button>
        </div>
      </header>
      <main id="main">
        <Suspense fallback={<Loading what="page" />}>
          <Switch>
            <Route path="/" component={Sites} />
            <Route path="/sites/:siteId/*?" component={SitePages} />
            <Route path="/admin/accounts" component={AdminAccounts} />
            <Route path="/admin/review" component={AdminReview} />
            <Route path="/relay/keys" component={RelayKeys} />
            <Route path="/admin/relay" component={RelayAdmin} />
            <Route path="/relay/usage" component={RelayUsage} />
            <Route>
              <h1>Not found</h1>
              <p>
                No page here. <Link href="/">Back to your sites</Link>
              </p>
            </Route>
          </Switch>
        </Suspense>
      </main>
    </>
  );
}

function App() {
  const [location] = useLocation();
  // The two pages for people without a session do not ask who is logged in.
  const open = location === '/login' || location === '/setup';
  const me = useLoad(() => (open ? Promise.resolve(null) : call(api.GET('/api/v1/me'))), open ? 'open' : 'me');
  const session = useMemo(() => ({ me: me.data, refresh: me.reload }), [me.data, me.reload]);
  let page: ReactNode;
  if (location === '/login') page = <Login />;
  else if (location === '/setup') page = <Setup />;
  else if (me.loading && !me.data)
    page = (
      <main id="main">
        <Loading what="your account" />
      </main>
    );
  else if (!me.data) page = <Redirect to={loginUrl()} replace />;
  else page = <Shell />;
  return <SessionContext.Provider value={session}>{page}</SessionContext.Provider>;
}

// The data of an analytics page opened directly is already on its way (early-start.ts); its
// code is too, and once in, the pages render without suspending (lazyPage).
if (isAnalyticsPath(location.pathname)) void SitePages.preload().then((m) => m.Analytics.preload());

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
