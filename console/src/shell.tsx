import { signal, useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { TenantShell } from './app.tsx';
import { api } from './lib/api.ts';
import { Link, location, navigate, tenantRoute } from './lib/router.tsx';
import { accessToken, expired, signedOut, signOut } from './lib/session.ts';
import {
  CALLBACK_PATH,
  currentConsolePath,
  endProviderSession,
  finishSignIn,
  justRecovered,
  SIGNED_OUT_PATH,
  startSignIn,
} from './lib/sign-in.ts';
import { EmptyState, ErrorNotice, Page } from './lib/ui.tsx';
import { Landing, loadTenants, NewTenantPage, TenantSwitcher } from './tenants.tsx';

/** The signed-in user's email (or name), for the header. */
const userLabel = signal<string | undefined>(undefined);

function SignInStatus(props: { error: unknown; retry: () => void }) {
  return (
    <main id="main" class="shell-sign-in">
      <h1>svc console</h1>
      {props.error === undefined ? (
        <p role="status">Signing in…</p>
      ) : (
        <>
          <ErrorNotice error={props.error} />
          <button type="button" onClick={props.retry}>
            Sign in
          </button>
        </>
      )}
    </main>
  );
}

/** No token: off to the provider, coming back to this page. */
function SigningIn() {
  const error = useSignal<unknown>(undefined);
  const start = () => {
    error.value = undefined;
    startSignIn(currentConsolePath(), expired.value).catch((caught: unknown) => {
      error.value = caught;
    });
  };
  useEffect(() => {
    if (!(expired.value && justRecovered())) start();
    else {
      error.value = new Error(
        'The service refused the token this sign-in just received (401). Check the sign-in configuration ' +
          '(SVC_CONSOLE_OIDC_* and SVC_HOSTED_AUTH_*), then sign in again.',
      );
    }
  }, []);
  return <SignInStatus error={error.value} retry={start} />;
}

/** Back from the provider: redeem the code, then the page the sign-in started on. */
function Callback() {
  const error = useSignal<unknown>(undefined);
  useEffect(() => {
    finishSignIn().then(
      (returnTo) => navigate(returnTo, { replace: true }),
      (caught: unknown) => {
        error.value = caught;
      },
    );
  }, []);
  return (
    <SignInStatus
      error={error.value}
      retry={() => {
        navigate('/', { replace: true });
        signedOut.value = false;
      }}
    />
  );
}

function SignedOut() {
  return (
    <main id="main" class="shell-sign-in">
      <h1>You are signed out</h1>
      <p>The console keeps no token once you sign out or close the tab.</p>
      <button
        type="button"
        onClick={() => {
          signedOut.value = false;
          navigate('/', { replace: true });
        }}
      >
        Sign in again
      </button>
    </main>
  );
}

function Header() {
  return (
    <header class="topbar">
      <Link to="/" class="brand">
        svc console
      </Link>
      <TenantSwitcher />
      <Link to="/new-tenant">New tenant</Link>
      <span class="spacer" />
      {userLabel.value === undefined ? null : <span class="topbar-user">{userLabel.value}</span>}
      <button
        type="button"
        class="secondary"
        onClick={() => {
          signOut();
          void endProviderSession().catch(() => {});
        }}
      >
        Sign out
      </button>
    </header>
  );
}

function NotFound() {
  return (
    <main id="main">
      <Page title="Page not found">
        <EmptyState title={`No console page at "${location.value}".`}>
          <p>
            <Link to="/">Go to your tenants</Link>
          </p>
        </EmptyState>
      </Page>
    </main>
  );
}

function SignedIn() {
  useEffect(() => {
    void loadTenants();
    api.GET('/api/auth/user').then(
      ({ data }) => {
        userLabel.value = data.user.email ?? data.user.name ?? data.user.providerUserId;
      },
      () => {},
    );
  }, []);
  const path = location.value;
  let body = <NotFound />;
  if (tenantRoute.value !== undefined) body = <TenantShell />;
  else if (path === '/') {
    body = (
      <main id="main">
        <Landing />
      </main>
    );
  } else if (path === '/new-tenant') {
    body = (
      <main id="main">
        <NewTenantPage />
      </main>
    );
  }
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <Header />
      {body}
    </>
  );
}

/** The top of the console: sign-in (OIDC code + PKCE), then the header and the page of the path. */
export function App() {
  if (location.value === CALLBACK_PATH) return <Callback />;
  if (location.value === SIGNED_OUT_PATH && accessToken.value === undefined) return <SignedOut />;
  if (accessToken.value === undefined) return signedOut.value ? <SignedOut /> : <SigningIn />;
  return <SignedIn />;
}
