import { lazyPage, type PageEntry } from '../page.ts';

/** The tenant area's pages (owned by that area; the order is the menu's). */
export const pages: PageEntry[] = [
  {
    path: '',
    component: lazyPage(() => import('./overview.tsx'), 'OverviewPage'),
    nav: { label: 'Overview', group: 'Tenant' },
  },
  {
    path: 'modules',
    component: lazyPage(() => import('./modules.tsx'), 'ModulesPage'),
    nav: { label: 'Modules', group: 'Tenant' },
  },
  {
    path: 'api-keys',
    component: lazyPage(() => import('./api-keys.tsx'), 'ApiKeysPage'),
    nav: { label: 'API keys', group: 'Access' },
  },
  {
    path: 'product-keys',
    component: lazyPage(() => import('./product-keys.tsx'), 'ProductKeysPage'),
    nav: { label: 'Product keys', group: 'Access' },
  },
  {
    path: 'team',
    component: lazyPage(() => import('./team.tsx'), 'TeamPage'),
    nav: { label: 'Team', group: 'Access' },
  },
];
