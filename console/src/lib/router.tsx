import { computed, signal } from '@preact/signals';
import type { ComponentChildren } from 'preact';

/** The console's base path: every page lives under it, and the service serves index.html for all of them. */
export const BASE = '/console';

/** The current location below BASE, e.g. `/t/ten_.../rooms` (query string excluded). */
export const location = signal(currentPath());
/** The current query string as parameters (filters live there, so a page's URL can be shared). */
export const query = signal(new URLSearchParams(window.location.search));

function currentPath(): string {
  const path = window.location.pathname;
  const rest = path.startsWith(BASE) ? path.slice(BASE.length) : path;
  return rest === '' ? '/' : rest;
}

window.addEventListener('popstate', () => {
  location.value = currentPath();
  query.value = new URLSearchParams(window.location.search);
});

/** Goes to a console path (below BASE, e.g. `/t/ten_x/rooms?limit=20`) without reloading. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const url = `${BASE}${to}`;
  if (options.replace === true) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  location.value = currentPath();
  query.value = new URLSearchParams(window.location.search);
  window.scrollTo(0, 0);
}

/** Replaces the query string of the current page (filters), keeping the path. */
export function setQuery(params: Record<string, string | undefined>): void {
  const next = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') next.set(k, v);
  const search = next.toString();
  navigate(`${location.value}${search === '' ? '' : `?${search}`}`, { replace: true });
}

/** Matches `pattern` (`rooms/:roomId`) against `path` (`rooms/room_1`): the parameters, or undefined. */
export function match(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/').filter(Boolean);
  const have = path.split('/').filter(Boolean);
  if (want.length !== have.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i] as string;
    const h = have[i] as string;
    if (w.startsWith(':')) params[w.slice(1)] = decodeURIComponent(h);
    else if (w !== h) return undefined;
  }
  return params;
}

/** The tenant named by the path (`/t/:tenantId/...`), and the page path after it. */
export const tenantRoute = computed(() => {
  const m = /^\/t\/([^/]+)(\/.*)?$/.exec(location.value);
  if (m === null) return undefined;
  return { tenantId: decodeURIComponent(m[1] as string), page: (m[2] ?? '/').replace(/^\/+/, '') };
});

/** A link inside the console: a real `<a href>` (middle-click and copy work) that navigates in place. */
export function Link(props: {
  to: string;
  children: ComponentChildren;
  class?: string;
  title?: string;
  'aria-current'?: 'page' | undefined;
  'aria-label'?: string;
}) {
  const { to, children, ...rest } = props;
  return (
    <a
      {...rest}
      href={`${BASE}${to}`}
      onClick={(event) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}

/** A path inside the current tenant: `tenantPath('rooms')` -> `/t/ten_.../rooms`. */
export function tenantPath(page: string): string {
  const tenantId = tenantRoute.value?.tenantId ?? '';
  return `/t/${encodeURIComponent(tenantId)}/${page.replace(/^\/+/, '')}`;
}
