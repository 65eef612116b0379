import type { ComponentType } from 'preact';

/** One console page: its path below `/t/:tenantId/` (`rooms/:roomId`), and where it sits in the menu. */
export interface PageEntry {
  path: string;
  component: ComponentType<{ params: Record<string, string> }>;
  /** Shown in the side menu when set (detail pages have none). */
  nav?: { label: string; group: 'Tenant' | 'Access' | 'Webhooks & events' | 'Live' | 'Commerce' | 'Data' };
}

/**
 * Every page of the console. Each area adds its pages in its own file (`pages/<area>/index.ts` exporting
 * `pages: PageEntry[]`) and one line here; the order is the menu's order.
 */
export const PAGES: PageEntry[] = [];
