import { SvcError } from './errors.ts';

interface Page {
  data: unknown[];
  nextCursor: string | null;
}
type PageResult = { data?: Page; error?: unknown; response: Response };
/** A GET as `paginate` calls it: the typing of path and options is done by `paginate`'s own signature. */
type GetPage = (url: string, init: Record<string, unknown>) => Promise<PageResult>;

/**
 * Every row of a list, page after page: each request passes the previous page's `nextCursor` as `cursor`
 * and the walk ends on a `null` one. An answer that is not 2xx is thrown as `SvcError` (an iterator has
 * no result to carry it).
 */
export async function* paginate(
  get: GetPage,
  path: string,
  init: { params?: { query?: Record<string, unknown> } & Record<string, unknown> } & Record<
    string,
    unknown
  > = {},
): AsyncGenerator<unknown, void, undefined> {
  let cursor: string | undefined;
  do {
    const query = { ...init.params?.query, ...(cursor === undefined ? {} : { cursor }) };
    const { data, error, response } = await get(path, { ...init, params: { ...init.params, query } });
    if (!response.ok || data === undefined) throw new SvcError(error, response);
    yield* data.data;
    cursor = data.nextCursor ?? undefined;
  } while (cursor !== undefined);
}
