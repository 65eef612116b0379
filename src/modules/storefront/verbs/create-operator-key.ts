import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { createProductKey, type ProductKeyRecord } from '../../../core/tenancy/product-keys.ts';
import { findOperatorRow } from '../lookups/find-operator.ts';
import type { OperatorKeyBody } from '../schema.ts';

/** A product key that speaks for one operator: its public answers carry the operator's brand and listing. */
export async function createOperatorKey(
  ctx: ServiceContext,
  { operatorId, ...input }: Static<typeof OperatorKeyBody> & { operatorId: string },
): Promise<ProductKeyRecord> {
  await findOperatorRow(ctx, operatorId);
  return createProductKey(ctx, { ...input, operatorId });
}
