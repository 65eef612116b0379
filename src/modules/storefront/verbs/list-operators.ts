import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { keysetPage } from '../../../core/db/keyset-page.ts';
import type { PageQuery } from '../../../core/http/pagination.ts';
import { OPERATOR_COLUMNS, type OperatorRow, toOperator } from '../operator-row.ts';
import type { OperatorPage } from '../schema.ts';

/** Newest first. */
export async function listOperators(
  ctx: ServiceContext,
  input: Static<typeof PageQuery>,
): Promise<Static<typeof OperatorPage>> {
  const { page, nextCursor } = await keysetPage<OperatorRow>(ctx.db, ctx.tenantId, input, {
    select: `select ${OPERATOR_COLUMNS} from operators o`,
    orderBy: 'o.list_seq',
    keyOf: (row) => row.list_seq,
    filters: () => [],
  });
  return { data: page.map(toOperator), nextCursor };
}
