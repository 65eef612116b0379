import type { Static } from 'typebox';
import { actorOf } from '../../../core/auth/principal.ts';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import { PG_ERROR, pgErrorCode } from '../../../core/db/database.ts';
import { Conflict, InvalidRequest } from '../../../core/http/errors.ts';
import { newId } from '../../../core/ids.ts';
import { PAYMENT_COLUMNS, type PaymentRow, type PaymentView, toPayment } from '../payment-row.ts';
import { providerFor } from '../providers/index.ts';
import type { CreatePaymentInput } from '../schema.ts';
import { callAndApply, STEP_LEASE_MS, stepKey } from '../steps.ts';
import { paymentsConfig } from './config.ts';

export type NewPayment = Static<typeof CreatePaymentInput> & { auctionId?: string };

/**
 * Creates a payment with the tenant's provider: `requires_payment_method`, or `requires_confirmation`
 * when a payment method comes with it. A session token pays as its own actor.
 */
export async function createPayment(
  ctx: ServiceContext,
  input: Static<typeof CreatePaymentInput>,
): Promise<PaymentView> {
  const own = actorOf(ctx.principal);
  if (own !== undefined && input.customer !== undefined && input.customer !== own.externalId) {
    throw new InvalidRequest('a session token pays as its own actor', [
      {
        field: '/body/customer',
        message: 'must be omitted with a session token',
        code: 'unexpected_customer',
      },
    ]);
  }
  return createPaymentRecord(ctx, { ...input, customer: input.customer ?? own?.externalId });
}

/**
 * Creates a payment (also for an auction's settlement, with `auctionId`: one per auction). Our row comes
 * first, with the create step recorded; then the provider is asked, with no transaction open and an
 * idempotency key built from our id (`svc-create-<pay>`); then its id is stored. A provider that refuses
 * leaves nothing (the row is removed); one that does not answer leaves the payment without its provider
 * id, fetched with the same key by its next change or by recovery, so the provider never holds an
 * object we do not know.
 */
export async function createPaymentRecord(ctx: ServiceContext, input: NewPayment): Promise<PaymentView> {
  const settings = await paymentsConfig(ctx);
  const provider = await providerFor(ctx, settings.provider);
  const now = ctx.clock.now();
  const id = newId('payment', now);
  const captureMethod = input.captureMethod ?? 'automatic';
  const status = input.paymentMethod === undefined ? 'requires_payment_method' : 'requires_confirmation';
  const at = new Date(now).toISOString();
  let row: PaymentRow;
  try {
    row = await inTenant(ctx, async (tx) => {
      const { rows } = await tx.query<PaymentRow>(
        `insert into payments (tenant_id, id, amount, currency, capture_method, status, customer, seller, description,
                               metadata, auction_id, provider, provider_ref, payment_method, livemode, created_at, updated_at,
                               step, step_key, step_args, step_state, step_until, step_seq)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, null, $13, $14, $15, $15,
                 'create', $16, '{}'::jsonb, 'calling', $17, 1)
         returning ${PAYMENT_COLUMNS}`,
        [
          ctx.tenantId,
          id,
          input.amount,
          input.currency,
          captureMethod,
          status,
          input.customer ?? null,
          input.seller ?? null,
          input.description ?? null,
          JSON.stringify(input.metadata ?? {}),
          input.auctionId ?? null,
          provider.name,
          input.paymentMethod ?? null,
          provider.livemode,
          at,
          stepKey('create', id, 1),
          new Date(now + STEP_LEASE_MS).toISOString(),
        ],
      );
      const inserted = rows[0];
      if (inserted === undefined) throw new Error('payment insert returned nothing');
      return inserted;
    });
  } catch (error) {
    if (pgErrorCode(error) === PG_ERROR.uniqueViolation && input.auctionId !== undefined) {
      throw new Conflict(`auction ${input.auctionId} already has a payment`);
    }
    throw error;
  }
  const saved = await callAndApply(ctx, { provider, settings }, row, {
    dropRefusedCreate: true,
    keepUnknownCreate: true,
  });
  return toPayment(saved);
}
