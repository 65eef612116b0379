import { type TSchema, Type } from 'typebox';
import { cursorNumber, decodeCursor, encodeCursor } from './cursor.ts';

/** Every list answers `{data, nextCursor}`, a page at a time: `limit` rows (50 unless asked, at most 100). */
export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 100;

/** What a list request says about its page: how many rows, and where the previous page ended. */
export interface PageInput {
  cursor?: string;
  limit?: number;
}

/** The query parameters of every list route; spread into a route's own: `{...PAGE_QUERY, type: ...}`. */
export const PAGE_QUERY = {
  cursor: Type.Optional(
    Type.String({
      maxLength: 500,
      description: 'Opaque: the `nextCursor` of the previous page; omit for the first page',
    }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE_LIMIT,
      default: DEFAULT_PAGE_LIMIT,
      description: `Rows in the page: ${DEFAULT_PAGE_LIMIT} unless asked, at most ${MAX_PAGE_LIMIT}`,
    }),
  ),
};

/** The query of a list route that has no filters of its own. */
export const PageQuery = Type.Object(PAGE_QUERY, { additionalProperties: false });

/** The answer of a list route: one page of `item`, named `<title>` in the OpenAPI document. */
export function Page<T extends TSchema>(item: T, title: string, description: string) {
  return Type.Object(
    {
      data: Type.Array(item),
      nextCursor: Type.Union([Type.String(), Type.Null()], {
        description: 'Pass as `cursor` for the next page; null on the last page',
      }),
    },
    { title, description },
  );
}

/**
 * One page of a list the service holds whole (a catalog, a tenant's few keys), in its given order: the
 * same `{data, nextCursor}` as a list read from the database page by page.
 */
export function pageOfList<T>(
  items: readonly T[],
  input: PageInput,
): { data: T[]; nextCursor: string | null } {
  const limit = input.limit ?? DEFAULT_PAGE_LIMIT;
  const start = cursorNumber(decodeCursor(input.cursor)?.at) ?? 0;
  const data = items.slice(start, start + limit);
  const end = start + data.length;
  return { data, nextCursor: end < items.length ? encodeCursor({ at: String(end) }) : null };
}
