import { lazyPage, type PageEntry } from '../page.ts';

/** The webhooks area's pages (owned by that area; the order is the menu's): endpoints, deliveries, events. */
export const pages: PageEntry[] = [
  {
    path: 'webhooks',
    component: lazyPage(() => import('./endpoints.tsx'), 'WebhooksPage'),
    nav: { label: 'Webhook endpoints', group: 'Webhooks & events' },
  },
  { path: 'webhooks/:webhookId', component: lazyPage(() => import('./endpoint.tsx'), 'EndpointPage') },
  {
    path: 'webhooks/deliveries/:deliveryId',
    component: lazyPage(() => import('./delivery.tsx'), 'DeliveryPage'),
  },
  {
    path: 'events',
    component: lazyPage(() => import('./events.tsx'), 'EventsPage'),
    nav: { label: 'Events', group: 'Webhooks & events' },
  },
];
