import type { Database } from '../db/database.ts';
import { type KeysetQuery, keysetPage } from '../db/keyset-page.ts';
import type { PageInput } from './pagination.ts';

/** A list route's query of stored rows: the keyset page (`KeysetQuery`) and how a row is answered. */
export interface ListQuery<Row, View> extends KeysetQuery<Row> {
  view(row: Row): View;
}

/**
 * The answer of a list route over a tenant's stored rows, `{data, nextCursor}`: one keyset page of the
 * query, each row as `view` answers it.
 */
export async function listPage<Row, View>(
  scope: { db: Database; tenantId: string },
  input: PageInput,
  query: ListQuery<Row, View>,
): Promise<{ data: View[]; nextCursor: string | null }> {
  const { page, nextCursor } = await keysetPage<Row>(scope.db, scope.tenantId, input, query);
  return { data: page.map((row) => query.view(row)), nextCursor };
}
