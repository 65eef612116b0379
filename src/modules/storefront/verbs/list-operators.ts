import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { listPage } from '../../../core/http/list-page.ts';
import type { PageQuery } from '../../../core/http/pagination.ts';
import { OPERATOR_COLUMNS, type OperatorRow, toOperator } from '../operator-row.ts';
import type { OperatorPage } from '../schema.ts';

/** Newest first. */
export function listOperators(
  ctx: ServiceContext,
  input: Static<typeof PageQuery>,
): Promise<Static<typeof OperatorPage>> {
  return listPage(ctx, input, {
    select: `select ${OPERATOR_COLUMNS} from operators o`,
    orderBy: 'o.list_seq',
    keyOf: (row: OperatorRow) => row.list_seq,
    view: toOperator,
  });
}
