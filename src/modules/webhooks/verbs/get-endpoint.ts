import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { tenantTx } from '../../../core/db/tenant-tx.ts';
import { findEndpoint } from '../find-rows.ts';
import type { EndpointRef, WebhookEndpoint } from '../schema.ts';
import { endpointView } from '../views.ts';

export async function getEndpoint(
  ctx: ServiceContext,
  input: Static<typeof EndpointRef>,
): Promise<WebhookEndpoint> {
  return tenantTx(ctx.db, ctx, async (tx) => endpointView(await findEndpoint(tx, ctx.tenantId, input.id)));
}
