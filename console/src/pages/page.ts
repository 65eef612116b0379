import { type ComponentType, h } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export type PageProps = { params: Record<string, string> };

/** One console page: its path below `/t/:tenantId/` (`rooms/:roomId`), and where it sits in the menu. */
export interface PageEntry {
  path: string;
  component: ComponentType<PageProps>;
  /** Shown in the side menu when set (detail pages have none). */
  nav?: { label: string; group: NavGroup };
}

export const NAV_GROUPS = ['Tenant', 'Access', 'Webhooks & events', 'Live', 'Commerce', 'Data'] as const;
export type NavGroup = (typeof NAV_GROUPS)[number];

/**
 * A page whose code is loaded when it is first shown (its own chunk), so the first load stays small:
 * `component: lazyPage(() => import('./rooms.tsx'), 'RoomsPage')`.
 */
export function lazyPage<M extends Record<string, unknown>>(
  load: () => Promise<M>,
  name: keyof M & string,
): ComponentType<PageProps> {
  let loaded: ComponentType<PageProps> | undefined;
  return function LazyPage(props: PageProps) {
    const [component, setComponent] = useState<ComponentType<PageProps> | undefined>(() => loaded);
    useEffect(() => {
      if (loaded !== undefined) return;
      void load().then((module) => {
        loaded = module[name] as ComponentType<PageProps>;
        setComponent(() => loaded);
      });
    }, []);
    return component === undefined
      ? h('p', { class: 'loading', role: 'status' }, 'Loading…')
      : h(component, props);
  };
}
