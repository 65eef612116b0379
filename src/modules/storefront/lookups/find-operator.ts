import type { ServiceContext } from '../../../core/context.ts';
import { tenantRead } from '../../../core/db/tenant-tx.ts';
import { NotFound } from '../../../core/http/errors.ts';
import { OPERATOR_COLUMNS, type OperatorRow } from '../operator-row.ts';

/** The operator's row in the caller's tenant, or NotFound. */
export async function findOperatorRow(
  ctx: Pick<ServiceContext, 'db' | 'tenantId'>,
  operatorId: string,
): Promise<OperatorRow> {
  const { rows } = await tenantRead<OperatorRow>(
    ctx.db,
    { tenantId: ctx.tenantId },
    `select ${OPERATOR_COLUMNS} from operators where id = $1`,
    [operatorId],
  );
  const row = rows[0];
  if (row === undefined) throw new NotFound('operator', operatorId);
  return row;
}
