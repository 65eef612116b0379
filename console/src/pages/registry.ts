import { pages as commerce } from './commerce/index.ts';
import { pages as live } from './live/index.ts';
import type { PageEntry } from './page.ts';
import { pages as tenant } from './tenant/index.ts';
import { pages as webhooks } from './webhooks/index.ts';

export { NAV_GROUPS, type NavGroup, type PageEntry, type PageProps } from './page.ts';

/** Every page of the console; each area owns its `pages/<area>/index.ts`. */
export const PAGES: PageEntry[] = [...tenant, ...webhooks, ...live, ...commerce];
