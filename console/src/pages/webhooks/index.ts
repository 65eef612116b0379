import type { PageEntry } from '../page.ts';

/** The webhooks area's pages (owned by that area; the order is the menu's). */
export const pages: PageEntry[] = [];
