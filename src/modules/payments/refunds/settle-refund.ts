import type { Emit, ServiceContext } from '../../../core/context.ts';
import type { Queryable } from '../../../core/db/database.ts';
import { postTransaction, refundedFee, refundPostings } from '../ledger.ts';
import {
  type PaymentRow,
  partiesOf,
  REFUND_COLUMNS,
  type RefundRow,
  savePayment,
  toPayment,
  toRefund,
} from '../payment-row.ts';

/** What succeeded refunds of a payment already gave back: the base of the next one's fee share. */
async function succeededBefore(tx: Queryable, paymentId: string): Promise<number> {
  const { rows } = await tx.query<{ total: string | null }>(
    `select sum(amount)::text as total from payment_refunds where payment_id = $1 and status = 'succeeded'`,
    [paymentId],
  );
  return Number(rows[0]?.total ?? 0);
}

/**
 * A refund of a locked payment reaches its outcome: succeeded posts the capture's reversal for its amount
 * (with the fee given back in proportion to what succeeded before); failed or canceled releases its
 * amount, told as `refund.failed` (the refund's status says which). The refund was counted in
 * `amount_refunded` when it was created.
 */
export async function settleRefund(
  ctx: ServiceContext,
  tx: Queryable,
  emit: Emit,
  payment: PaymentRow,
  refund: RefundRow,
  outcome: 'succeeded' | 'failed' | 'canceled',
  failureReason: string | null = null,
): Promise<PaymentRow> {
  const now = ctx.clock.now();
  const amount = Number(refund.amount);
  const before = await succeededBefore(tx, payment.id);
  const { rows } = await tx.query<RefundRow>(
    `update payment_refunds set status = $2, failure_reason = $3, updated_at = $4 where id = $1
     returning ${REFUND_COLUMNS}`,
    [refund.id, outcome, failureReason, new Date(now).toISOString()],
  );
  const updated = toRefund(rows[0] ?? { ...refund, status: outcome });
  if (outcome === 'failed' || outcome === 'canceled') {
    const saved = await savePayment(
      tx,
      payment.id,
      { amount_refunded: Number(payment.amount_refunded) - amount },
      now,
    );
    await emit('refund.failed', { refundId: refund.id, paymentId: payment.id, refund: updated });
    return saved;
  }
  const feeBack = refundedFee(
    Number(payment.application_fee),
    Number(payment.amount_captured),
    before,
    amount,
  );
  await postTransaction(tx, ctx.tenantId, {
    kind: 'refund',
    paymentId: payment.id,
    refundId: refund.id,
    postings: refundPostings(partiesOf(payment), amount, feeBack),
    at: now,
  });
  await emit('refund.succeeded', {
    refundId: refund.id,
    paymentId: payment.id,
    refund: updated,
    payment: toPayment(payment),
  });
  return payment;
}
