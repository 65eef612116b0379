import { cursorNumber, decodeCursor, encodeCursor } from '../http/cursor.ts';
import type { Database } from './database.ts';
import { tenantRead } from './tenant-tx.ts';

/** Rows of a page when the request names no limit. */
export const DEFAULT_PAGE_LIMIT = 50;

export interface NewestFirstQuery<Row> {
  /** `select <columns> from <table>`; the filters and the order follow it. */
  select: string;
  /** The bigint column the list is ordered by, newest highest (`r.seq`); the cursor holds its value. */
  orderBy: string;
  /** The row's value of `orderBy`, for the next page's cursor. */
  keyOf(row: Row): number | string;
  /** The list's own conditions, ANDed; `bind` binds a value and returns its placeholder. */
  filters(bind: (value: unknown) => string): string[];
}

/**
 * One page of a tenant's rows, newest first, keyset-paged by a bigint column. Only the conditions asked
 * for go into the statement, so the plain case is a backward scan of the (tenant_id, column) index that
 * stops after limit + 1 rows (the one more says whether a next page exists).
 */
export async function newestFirstPage<Row>(
  db: Database,
  tenantId: string,
  input: { cursor?: string; limit?: number },
  query: NewestFirstQuery<Row>,
): Promise<{ page: Row[]; nextCursor: string | null }> {
  const { orderBy } = query;
  const limit = input.limit ?? DEFAULT_PAGE_LIMIT;
  const after = cursorNumber(decodeCursor(input.cursor)?.seq);
  const params: unknown[] = [limit + 1];
  const bind = (value: unknown) => `$${params.push(value)}`;
  const where: string[] = [];
  if (after !== undefined) where.push(`${orderBy} < ${bind(after)}::bigint`);
  where.push(...query.filters(bind));
  const { rows } = await tenantRead<Row>(
    db,
    { tenantId },
    `${query.select}
      ${where.length === 0 ? '' : `where ${where.join(' and ')}`}
      order by ${orderBy} desc limit $1`,
    params,
  );
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    page,
    nextCursor:
      rows.length > limit && last !== undefined ? encodeCursor({ seq: String(query.keyOf(last)) }) : null,
  };
}
