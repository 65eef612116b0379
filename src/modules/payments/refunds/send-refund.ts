import { inTenant, type ServiceContext } from '../../../core/context.ts';
import {
  lockPayment,
  type PaymentRow,
  providerView,
  REFUND_COLUMNS,
  type RefundRow,
  type RefundView,
  toRefund,
} from '../payment-row.ts';
import type { PaymentProvider, ProviderRefund } from '../providers/provider.ts';
import { prepare } from '../steps/prepare.ts';
import { outcomeUnknown, STEP_LEASE_MS } from '../steps/step-keys.ts';
import { settleRefund } from './settle-refund.ts';

/** Asks the provider for a recorded refund (no transaction open) and applies its answer, once. */
export async function sendRefund(
  ctx: ServiceContext,
  provider: PaymentProvider,
  payment: PaymentRow,
  refund: RefundRow,
): Promise<RefundView> {
  let result: ProviderRefund;
  try {
    result = await provider.refund(providerView(payment), {
      id: refund.id,
      amount: Number(refund.amount),
      reason: refund.reason,
    });
  } catch (error) {
    if (outcomeUnknown(error)) return toRefund(refund);
    await applyRefund(ctx, refund, {
      status: 'failed',
      providerRef: null,
      failureReason: error instanceof Error ? error.message : 'refused',
    });
    throw error;
  }
  return applyRefund(ctx, refund, result);
}

async function applyRefund(
  ctx: ServiceContext,
  refund: RefundRow,
  result: ProviderRefund,
): Promise<RefundView> {
  return inTenant(ctx, async (tx, emit) => {
    const payment = await lockPayment(tx, refund.payment_id);
    const { rows } = await tx.query<RefundRow>(
      `update payment_refunds set provider_ref = coalesce($2, provider_ref), call_until = null
        where id = $1 and call_until is not null and status = 'pending' returning ${REFUND_COLUMNS}`,
      [refund.id, result.providerRef],
    );
    const held = rows[0];
    if (held === undefined) {
      // Applied already (a request and recovery both asked): as it is now.
      const { rows: now } = await tx.query<RefundRow>(
        `select ${REFUND_COLUMNS} from payment_refunds where id = $1`,
        [refund.id],
      );
      return toRefund(now[0] ?? refund);
    }
    if (result.status === 'pending') return toRefund(held);
    const failureReason = result.failureReason ?? null;
    await settleRefund(ctx, tx, emit, payment, held, result.status, failureReason);
    return { ...toRefund(held), status: result.status, failureReason };
  });
}

/**
 * Recovery of a refund whose provider call never got its answer applied (a lost answer, or an instance
 * that died): asked again with the same idempotency key once its lease ran out. Answers whether it ran.
 */
export async function resumeRefund(ctx: ServiceContext, refundId: string): Promise<boolean> {
  const claimed = await inTenant(ctx, async (tx) => {
    const now = ctx.clock.now();
    const { rows } = await tx.query<RefundRow>(
      `update payment_refunds set call_until = $2
        where id = $1 and status = 'pending' and call_until <= $3 returning ${REFUND_COLUMNS}`,
      [refundId, new Date(now + STEP_LEASE_MS).toISOString(), new Date(now).toISOString()],
    );
    const refund = rows[0];
    if (refund === undefined) return undefined;
    const payment = await lockPayment(tx, refund.payment_id);
    return { refund, payment };
  });
  if (claimed === undefined) return false;
  const { provider } = await prepare(ctx, claimed.payment.id);
  await sendRefund(ctx, provider, claimed.payment, claimed.refund);
  return true;
}
