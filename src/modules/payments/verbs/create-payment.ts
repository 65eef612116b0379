import type { Static } from 'typebox';
import { actorOf } from '../../../core/auth/principal.ts';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import { PG_ERROR, pgErrorCode } from '../../../core/db/database.ts';
import { Conflict, InvalidRequest } from '../../../core/http/errors.ts';
import { newId } from '../../../core/ids.ts';
import { PAYMENT_COLUMNS, type PaymentRow, type PaymentView, toPayment } from '../payment-row.ts';
import { providerFor } from '../providers/index.ts';
import type { CreatePaymentInput } from '../schema.ts';
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

/** Creates a payment (also for an auction's settlement, with `auctionId`: one per auction). */
export async function createPaymentRecord(ctx: ServiceContext, input: NewPayment): Promise<PaymentView> {
  const { provider: providerName } = await paymentsConfig(ctx);
  const provider = await providerFor(ctx, providerName);
  const now = ctx.clock.now();
  const id = newId('payment', now);
  const captureMethod = input.captureMethod ?? 'automatic';
  const status = input.paymentMethod === undefined ? 'requires_payment_method' : 'requires_confirmation';
  const { providerRef } = await provider.initiate({
    id,
    amount: input.amount,
    currency: input.currency,
    captureMethod,
    customer: input.customer ?? null,
    description: input.description ?? null,
    providerRef: null,
    paymentMethod: input.paymentMethod ?? null,
    status,
  });
  const at = new Date(now).toISOString();
  try {
    return await inTenant(ctx, async (tx, emit) => {
      const { rows } = await tx.query<PaymentRow>(
        `insert into payments (tenant_id, id, amount, currency, capture_method, status, customer, seller, description,
                               metadata, auction_id, provider, provider_ref, payment_method, livemode, created_at, updated_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $16)
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
          providerRef,
          input.paymentMethod ?? null,
          provider.livemode,
          at,
        ],
      );
      const row = rows[0];
      if (row === undefined) throw new Error('payment insert returned nothing');
      const payment = toPayment(row);
      await emit('payment.created', { paymentId: id, payment });
      return payment;
    });
  } catch (error) {
    if (pgErrorCode(error) === PG_ERROR.uniqueViolation && input.auctionId !== undefined) {
      throw new Conflict(`auction ${input.auctionId} already has a payment`);
    }
    throw error;
  }
}
