import type { ComponentChildren } from 'preact';
import type { Loaded } from './load.ts';
import { query, setQuery } from './router.tsx';
import { ErrorNotice, Loading } from './ui.tsx';

/** One page of a cursor-paged list, as the API answers it. */
export interface ListPage<T> {
  data: T[];
  nextCursor: string | null;
}

/**
 * What a list shows, in order: the last error (above any rows already loaded), "Loading…" before the first
 * answer, `empty` (an `EmptyState` saying what to do next) when the page has no rows, else `children(page)`.
 */
export function Listing<T, P extends ListPage<T>>(props: {
  load: Loaded<P>;
  what: string;
  empty: ComponentChildren;
  children: (page: P) => ComponentChildren;
}) {
  const { load } = props;
  const page = load.data.value;
  return (
    <>
      {load.error.value === undefined ? null : <ErrorNotice error={load.error.value} />}
      {page === undefined ? (
        load.loading.value ? (
          <Loading what={props.what} />
        ) : null
      ) : page.data.length === 0 ? (
        props.empty
      ) : (
        props.children(page)
      )}
    </>
  );
}

/** Moves a list whose cursor is `cursor` in the query string to another page, keeping its filters. */
export function setCursor(cursor: string | undefined): void {
  const others = [...query.value.entries()].filter(([k]) => k !== 'cursor');
  setQuery({ ...Object.fromEntries(others), cursor });
}

/**
 * "First page" (when `cursor` says this is a later page) and "Next page" (when the API gave a `next` cursor)
 * buttons; `go` moves the list to a cursor (`undefined`: the first page; by default the query string's
 * `cursor`). `of` names the list when a page has
 * several ("Next page of operators"); `labels` replaces both texts (a time-ordered log: "Newest", "Older").
 */
export function Pager(props: {
  cursor: string | undefined;
  next: string | null;
  go?: (cursor: string | undefined) => void;
  of?: string;
  labels?: { first: string; next: string };
  class?: string;
}) {
  const { next } = props;
  const go = props.go ?? setCursor;
  const of = props.of === undefined ? '' : ` of ${props.of}`;
  const labels = props.labels ?? { first: `First page${of}`, next: `Next page${of}` };
  return (
    <p class={props.class}>
      {props.cursor === undefined ? null : (
        <button type="button" class="secondary" onClick={() => go(undefined)}>
          {labels.first}
        </button>
      )}{' '}
      {next === null ? null : (
        <button type="button" class="secondary" onClick={() => go(next)}>
          {labels.next}
        </button>
      )}
    </p>
  );
}
