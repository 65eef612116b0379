import type { PageEntry } from '../page.ts';

/** The commerce area's pages (owned by that area; the order is the menu's). */
export const pages: PageEntry[] = [];
