import { type Signal, useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';

export interface Loaded<T> {
  data: Signal<T | undefined>;
  error: Signal<unknown>;
  loading: Signal<boolean>;
  /** Loads again (after a change the page made). */
  reload: () => Promise<void>;
}

/**
 * Loads what a page shows, again whenever one of `deps` changes; a late answer to an earlier load is
 * dropped, so a fast filter change never shows stale rows.
 */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const data = useSignal<T | undefined>(undefined);
  const error = useSignal<unknown>(undefined);
  const loading = useSignal(true);
  const generation = useSignal(0);
  const reload = async () => {
    const mine = ++generation.value;
    loading.value = true;
    try {
      const value = await load();
      if (mine !== generation.value) return;
      data.value = value;
      error.value = undefined;
    } catch (caught) {
      if (mine !== generation.value) return;
      error.value = caught;
    } finally {
      if (mine === generation.value) loading.value = false;
    }
  };
  useEffect(() => {
    void reload();
  }, deps);
  return { data, error, loading, reload };
}

/** Runs `tick` every `ms` while the page is shown (live views: tails, presence, bids). */
export function useInterval(tick: () => void, ms: number, deps: readonly unknown[] = []): void {
  useEffect(() => {
    const timer = window.setInterval(tick, ms);
    return () => window.clearInterval(timer);
  }, [ms, ...deps]);
}
