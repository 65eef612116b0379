import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import type { OperatorStorefront, OperatorStorefrontBody } from '../schema.ts';
import { getOperatorStorefront } from './get-operator-storefront.ts';
import { updateOperator } from './update-operator.ts';

/** Sets the operator's brand overrides and/or listing (each as a whole). */
export async function putOperatorStorefront(
  ctx: ServiceContext,
  input: Static<typeof OperatorStorefrontBody> & { operatorId: string },
): Promise<Static<typeof OperatorStorefront>> {
  await updateOperator(ctx, input);
  return getOperatorStorefront(ctx, input);
}
