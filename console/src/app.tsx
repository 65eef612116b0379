import { Link, match, tenantRoute } from './lib/router.tsx';
import { EmptyState, Page } from './lib/ui.tsx';
import { NAV_GROUPS, PAGES, type PageEntry } from './pages/registry.ts';

function Nav(props: { tenantId: string }) {
  return (
    <nav aria-label="Console">
      {NAV_GROUPS.map((group) => {
        const entries = PAGES.filter((p) => p.nav?.group === group);
        if (entries.length === 0) return null;
        return (
          <div class="nav-group" key={group}>
            <h2>{group}</h2>
            <ul>
              {entries.map((entry) => (
                <li key={entry.path}>
                  <Link
                    to={`/t/${encodeURIComponent(props.tenantId)}/${entry.path}`}
                    aria-current={tenantRoute.value?.page === entry.path ? 'page' : undefined}
                  >
                    {entry.nav?.label}
                  </Link>
                </li>
              ))}
            </ul>
          </div>
        );
      })}
    </nav>
  );
}

function resolve(page: string): { entry: PageEntry; params: Record<string, string> } | undefined {
  for (const entry of PAGES) {
    const params = match(entry.path, page);
    if (params !== undefined) return { entry, params };
  }
  return undefined;
}

/** The signed-in shell: menu and the page of the current path. */
export function TenantShell() {
  const route = tenantRoute.value;
  if (route === undefined) return null;
  const found = resolve(route.page);
  return (
    <div class="shell">
      <Nav tenantId={route.tenantId} />
      <main id="main">
        {found === undefined ? (
          <Page title="Page not found">
            <EmptyState title={`No console page at "${route.page}".`}>
              <p>
                <Link to={`/t/${encodeURIComponent(route.tenantId)}/`}>Go to the overview</Link>
              </p>
            </EmptyState>
          </Page>
        ) : (
          <found.entry.component params={found.params} key={route.page} />
        )}
      </main>
    </div>
  );
}
