import { cursorNumber, decodeCursor, encodeCursor } from '../http/cursor.ts';
import { DEFAULT_PAGE_LIMIT, type PageInput } from '../http/pagination.ts';
import type { Database } from './database.ts';
import { tenantRead } from './tenant-tx.ts';

export interface KeysetQuery<Row> {
  /** `select <columns> from <table>`; the filters and the order follow it. */
  select: string;
  /**
   * The unique column the list is ordered by (`r.seq`); the cursor holds its value. A bigint column unless
   * `textKey`, newest (highest) first unless `ascending`.
   */
  orderBy: string;
  ascending?: boolean;
  /** The key is text: compared and ordered in the column's own collation, the order its index is read in. */
  textKey?: boolean;
  /**
   * A text key compared as bytes (`collate "C"`): the same order on every database whatever its default
   * collation, for a list shown sorted by name (no index serves it; an id column leaves it off).
   */
  byteOrder?: boolean;
  /** The row's value of `orderBy`, for the next page's cursor. */
  keyOf(row: Row): number | string;
  /** The list's own conditions, ANDed (none when left out); `bind` binds a value and returns its placeholder. */
  filters?(bind: (value: unknown) => string): string[];
}

/**
 * One page of a tenant's rows, keyset-paged by one unique column: every list of stored rows is paged by
 * it. Only the conditions asked for go into the statement, so the plain case is a scan of the
 * (tenant_id, column) index that stops after limit + 1 rows (the one more says whether a next page exists).
 */
export async function keysetPage<Row>(
  db: Database,
  tenantId: string,
  input: PageInput,
  query: KeysetQuery<Row>,
): Promise<{ page: Row[]; nextCursor: string | null }> {
  const { orderBy } = query;
  const limit = input.limit ?? DEFAULT_PAGE_LIMIT;
  const seq = decodeCursor(input.cursor)?.seq;
  const after = query.textKey === true ? seq : cursorNumber(seq);
  const params: unknown[] = [limit + 1];
  const bind = (value: unknown) => `$${params.push(value)}`;
  const key = query.textKey === true && query.byteOrder === true ? `${orderBy} collate "C"` : orderBy;
  const where: string[] = [];
  if (after !== undefined)
    where.push(
      `${key} ${query.ascending === true ? '>' : '<'} ${bind(after)}::${query.textKey === true ? 'text' : 'bigint'}`,
    );
  if (query.filters !== undefined) where.push(...query.filters(bind));
  const { rows } = await tenantRead<Row>(
    db,
    { tenantId },
    `${query.select}
      ${where.length === 0 ? '' : `where ${where.join(' and ')}`}
      order by ${key} ${query.ascending === true ? 'asc' : 'desc'} limit $1`,
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
