import type { ServiceContext } from '../../../core/context.ts';
import { findOperatorRow } from '../lookups/find-operator.ts';
import { toOperator } from '../operator-row.ts';
import type { OperatorView } from '../schema.ts';

export async function getOperator(
  ctx: ServiceContext,
  { operatorId }: { operatorId: string },
): Promise<OperatorView> {
  return toOperator(await findOperatorRow(ctx, operatorId));
}
