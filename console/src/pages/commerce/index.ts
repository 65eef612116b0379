import type { PageEntry } from '../registry.ts';

/** The commerce area's pages (owned by that area; the order is the menu's). */
export const pages: PageEntry[] = [];
