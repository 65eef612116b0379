import type { Static } from 'typebox';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import { InvalidRequest } from '../../../core/http/errors.ts';
import { newId } from '../../../core/ids.ts';
import {
  lockPayment,
  providerView,
  REFUND_COLUMNS,
  type RefundRow,
  type RefundView,
  savePayment,
  toRefund,
} from '../payment-row.ts';
import type { RefundInput } from '../schema.ts';
import { assertOperation } from '../states.ts';
import { prepare } from './prepare.ts';
import { settleRefund } from './settle-refund.ts';

/**
 * Refunds a succeeded payment (recorded `pending`, then settled at once when the provider has decided), in whole (the default: what is left) or in part. Refunds add up to at most
 * the captured amount: the payment row is locked while one is decided, and its check constraint holds it
 * even so. A succeeded refund posts the capture's reversal, with the fee given back in proportion.
 */
export async function refundPayment(
  ctx: ServiceContext,
  input: Static<typeof RefundInput>,
): Promise<RefundView> {
  const { provider } = await prepare(ctx, input.paymentId);
  return inTenant(ctx, async (tx, emit) => {
    const row = await lockPayment(tx, input.paymentId);
    assertOperation(row.id, row.status, 'refund');
    const captured = Number(row.amount_captured);
    const refundedBefore = Number(row.amount_refunded);
    const remaining = captured - refundedBefore;
    const amount = input.amount ?? remaining;
    if (amount <= 0 || amount > remaining) {
      throw new InvalidRequest(
        `refund of ${amount} is more than the ${remaining} left to refund (${captured} captured, ${refundedBefore} refunded)`,
        [
          {
            field: '/body/amount',
            message: `at most ${remaining}: refunds add up to at most the ${captured} captured`,
            code: 'amount_too_large',
          },
        ],
      );
    }
    const now = ctx.clock.now();
    const id = newId('refund', now);
    const result = await provider.refund(providerView(row), { id, amount, reason: input.reason ?? null });
    const at = new Date(now).toISOString();
    const { rows } = await tx.query<RefundRow>(
      `insert into payment_refunds (tenant_id, id, payment_id, amount, currency, reason, status, provider_ref,
                                    failure_reason, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) returning ${REFUND_COLUMNS}`,
      [
        ctx.tenantId,
        id,
        row.id,
        amount,
        row.currency,
        input.reason ?? null,
        'pending',
        result.providerRef,
        null,
        at,
      ],
    );
    const inserted = rows[0];
    if (inserted === undefined) throw new Error('refund insert returned nothing');
    const refund = toRefund(inserted);
    await emit('refund.created', { refundId: id, paymentId: row.id, refund });
    // Counted at once, pending or not, so no other refund can take the same money meanwhile.
    const saved = await savePayment(tx, row.id, { amount_refunded: refundedBefore + amount }, now);
    if (result.status === 'pending') return refund;
    const failureReason = result.failureReason ?? null;
    await settleRefund(ctx, tx, emit, saved, inserted, result.status, failureReason);
    return { ...refund, status: result.status, failureReason };
  });
}
