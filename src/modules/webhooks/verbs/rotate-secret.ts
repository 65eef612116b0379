import type { ServiceContext } from '../../../core/context.ts';
import { tenantTx } from '../../../core/db/tenant-tx.ts';
import { InvalidRequest } from '../../../core/http/errors.ts';
import { validated } from '../../../core/modules/validate.ts';
import { ENDPOINT_SECRET, encryptSecret, PREVIOUS_ENDPOINT_SECRET, readSecret } from '../endpoint-secrets.ts';
import { findEndpoint } from '../find-rows.ts';
import { RotateSecretBody, type RotateSecretInput, type WebhookEndpoint } from '../schema.ts';
import { ENDPOINT_COLUMNS, type EndpointRow, endpointView } from '../views.ts';

const DEFAULT_ROTATION_GRACE_SECONDS = 86_400;

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
    const endpoint = { tenantId: ctx.tenantId, endpointId: current.id };
    const { rows: secrets } = await tx.query<{ secret: string | null; secret_encrypted: string | null }>(
      'select secret, secret_encrypted from webhook_endpoints where tenant_id = $1 and id = $2',
      [ctx.tenantId, current.id],
    );
    const stored = secrets[0];
    const oldSecret =
      stored === undefined
        ? undefined
        : readSecret(
            ctx.encryption,
            { column: ENDPOINT_SECRET, encrypted: stored.secret_encrypted, plain: stored.secret },
            endpoint,
          );
    if (oldSecret === body.secret) {
      throw new InvalidRequest('the new secret must differ from the current one', [
        { field: '/body/secret', message: 'equals the current secret', code: 'unchanged' },
      ]);
    }
    const kept = grace > 0 ? oldSecret : undefined;
    const { rows } = await tx.query<EndpointRow>(
      `update webhook_endpoints
          set secret = null, secret_encrypted = $3, previous_secret = null, previous_secret_encrypted = $4,
              previous_secret_expires_at = $5, updated_at = $6
        where tenant_id = $1 and id = $2
        returning ${ENDPOINT_COLUMNS}`,
      [
        ctx.tenantId,
        current.id,
        encryptSecret(ctx.encryption, ENDPOINT_SECRET, endpoint, body.secret),
        kept === undefined ? null : encryptSecret(ctx.encryption, PREVIOUS_ENDPOINT_SECRET, endpoint, kept),
        kept === undefined ? null : new Date(now + grace * 1000).toISOString(),
        new Date(now).toISOString(),
      ],
    );
    const row = rows[0];
    if (row === undefined) throw new Error('update returned no row');
    return endpointView(row);
  });
}
