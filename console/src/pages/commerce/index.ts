import { lazyPage, type PageEntry } from '../page.ts';

/** The commerce area's pages (owned by that area; the order is the menu's): money, then data. */
export const pages: PageEntry[] = [
  {
    path: 'payments',
    component: lazyPage(() => import('./payments.tsx'), 'PaymentsPage'),
    nav: { label: 'Payments', group: 'Commerce' },
  },
  { path: 'payments/:paymentId', component: lazyPage(() => import('./payment.tsx'), 'PaymentPage') },
  {
    path: 'ledger',
    component: lazyPage(() => import('./ledger.tsx'), 'LedgerPage'),
    nav: { label: 'Ledger', group: 'Commerce' },
  },
  {
    path: 'storefront',
    component: lazyPage(() => import('./storefront.tsx'), 'StorefrontPage'),
    nav: { label: 'Storefront', group: 'Commerce' },
  },
  {
    path: 'storefront/operators/:operatorId',
    component: lazyPage(() => import('./operator.tsx'), 'OperatorPage'),
  },
  {
    path: 'analytics',
    component: lazyPage(() => import('./analytics.tsx'), 'AnalyticsPage'),
    nav: { label: 'Analytics', group: 'Data' },
  },
];
