import type { ServiceContext } from '../../../core/context.ts';
import { tenantTx } from '../../../core/db/tenant-tx.ts';
import { InvalidRequest } from '../../../core/http/errors.ts';
import { validated } from '../../../core/modules/validate.ts';
import { findEndpoint } from '../find-rows.ts';
import { RotateSecretBody, type RotateSecretInput, type WebhookEndpoint } from '../schema.ts';
import { ENDPOINT_COLUMNS, type EndpointRow, endpointView } from '../views.ts';

export const DEFAULT_ROTATION_GRACE_SECONDS = 86_400;

/**
 * The old secret keeps signing next to the new one for `graceSeconds` (default one day, at most seven);
 * 0 drops it at once. A rotation during a grace period drops the secret that was already retiring.
 */
export async function rotateSecret(ctx: ServiceContext, input: RotateSecretInput): Promise<WebhookEndpoint> {
  const { id, ...fields } = input;
  const body = validated<Omit<RotateSecretInput, 'id'>>(RotateSecretBody, fields, 'body');
  const grace = body.graceSeconds ?? DEFAULT_ROTATION_GRACE_SECONDS;
  const now = ctx.clock.now();
  return tenantTx(ctx.db, ctx, async (tx) => {
    const current = await findEndpoint(tx, ctx.tenantId, id, { forUpdate: true });
    const { rows: secrets } = await tx.query<{ secret: string }>(
      'select secret from webhook_endpoints where tenant_id = $1 and id = $2',
      [ctx.tenantId, current.id],
    );
    const oldSecret = secrets[0]?.secret;
    if (oldSecret === body.secret) {
      throw new InvalidRequest('the new secret must differ from the current one', [
        { field: '/body/secret', message: 'equals the current secret', code: 'unchanged' },
      ]);
    }
    const keepOld = grace > 0 && oldSecret !== undefined;
    const { rows } = await tx.query<EndpointRow>(
      `update webhook_endpoints
          set secret = $3, previous_secret = $4, previous_secret_expires_at = $5, updated_at = $6
        where tenant_id = $1 and id = $2
        returning ${ENDPOINT_COLUMNS}`,
      [
        ctx.tenantId,
        current.id,
        body.secret,
        keepOld ? oldSecret : null,
        keepOld ? new Date(now + grace * 1000).toISOString() : null,
        new Date(now).toISOString(),
      ],
    );
    const row = rows[0];
    if (row === undefined) throw new Error('update returned no row');
    return endpointView(row);
  });
}
