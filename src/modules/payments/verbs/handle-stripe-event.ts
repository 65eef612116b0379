import type Stripe from 'stripe';
import { type Emit, inTenant, type ServiceContext } from '../../../core/context.ts';
import type { Queryable } from '../../../core/db/database.ts';
import {
  lockPayment,
  PAYMENT_COLUMNS,
  type PaymentRow,
  REFUND_COLUMNS,
  type RefundRow,
} from '../payment-row.ts';
import type { PaymentProvider } from '../providers/provider.ts';
import { settleRefund } from '../refunds/settle-refund.ts';
import { paymentsConfig } from '../settings.ts';
import { canTransition } from '../states.ts';
import { applyOutcome } from '../steps/apply-outcome.ts';

export interface StripeEventResult {
  received: true;
  /** `duplicate`: seen before, nothing done; `ignored`: nothing we track changed. */
  result: 'applied' | 'duplicate' | 'ignored';
  paymentId: string | null;
}

/**
 * A verified Stripe event: recorded by its id in the transaction that applies it, so a retried or
 * replayed event changes nothing. A PaymentIntent event, translated by the provider, moves the payment to
 * Stripe's status when the transition table allows it (an event that arrives after a later one is ignored).
 */
export async function handleStripeEvent(
  ctx: ServiceContext,
  provider: PaymentProvider,
  event: Stripe.Event,
): Promise<StripeEventResult> {
  const settings = await paymentsConfig(ctx);
  return inTenant(ctx, async (tx, emit) => {
    if (event.type === 'refund.updated' || event.type === 'charge.refund.updated') {
      return refundUpdated(ctx, tx, emit, event, event.data.object as Stripe.Refund);
    }
    const news = provider.translateEvent(event);
    const { rows: found } =
      news.providerRef === null
        ? { rows: [] as PaymentRow[] }
        : await tx.query<PaymentRow>(
            `select ${PAYMENT_COLUMNS} from payments where provider = $1 and provider_ref = $2 for update`,
            [provider.name, news.providerRef],
          );
    const row = found[0];
    const { rows: fresh } = await tx.query(
      `insert into payment_provider_events (tenant_id, provider, event_id, type, payment_id, received_at)
       values ($1, 'stripe', $2, $3, $4, $5) on conflict do nothing returning event_id`,
      [ctx.tenantId, event.id, event.type, row?.id ?? null, new Date(ctx.clock.now()).toISOString()],
    );
    if (fresh.length === 0) return { received: true, result: 'duplicate', paymentId: row?.id ?? null };
    const { outcome } = news;
    if (row === undefined || outcome === undefined) {
      return { received: true, result: 'ignored', paymentId: row?.id ?? null };
    }
    const to = outcome.status === 'failed' ? 'requires_payment_method' : outcome.status;
    if (to === row.status || !canTransition(row.status, to)) {
      return { received: true, result: 'ignored', paymentId: row.id };
    }
    await applyOutcome({ ctx, tx, emit, settings }, row, outcome, {
      ...(outcome.status === 'succeeded' ? { captured: news.amountCaptured ?? Number(row.amount) } : {}),
    });
    return { received: true, result: 'applied', paymentId: row.id };
  });
}

/**
 * A refund Stripe decided later (it answered `pending`): settled once, when it is still pending here. It
 * is found by Stripe's id, or by ours in its metadata when Stripe's answer to the refund never arrived
 * (then the event also ends the call's recovery: its outcome is known).
 */
async function refundUpdated(
  ctx: ServiceContext,
  tx: Queryable,
  emit: Emit,
  event: Stripe.Event,
  stripeRefund: Stripe.Refund,
): Promise<StripeEventResult> {
  const ours = stripeRefund.metadata?.svc_refund_id ?? null;
  const { rows } = await tx.query<RefundRow>(
    `select ${REFUND_COLUMNS} from payment_refunds
      where provider_ref = $1 or (provider_ref is null and id = $2)
      order by provider_ref nulls last limit 1`,
    [stripeRefund.id, ours],
  );
  const refund = rows[0];
  const paymentId = refund?.payment_id ?? null;
  const { rows: fresh } = await tx.query(
    `insert into payment_provider_events (tenant_id, provider, event_id, type, payment_id, received_at)
     values ($1, 'stripe', $2, $3, $4, $5) on conflict do nothing returning event_id`,
    [ctx.tenantId, event.id, event.type, paymentId, new Date(ctx.clock.now()).toISOString()],
  );
  if (fresh.length === 0) return { received: true, result: 'duplicate', paymentId };
  const outcome =
    stripeRefund.status === 'succeeded' ||
    stripeRefund.status === 'failed' ||
    stripeRefund.status === 'canceled'
      ? stripeRefund.status
      : undefined;
  if (refund === undefined || outcome === undefined) return { received: true, result: 'ignored', paymentId };
  const payment = await lockPayment(tx, refund.payment_id);
  const { rows: still } = await tx.query<RefundRow>(
    `select ${REFUND_COLUMNS} from payment_refunds where id = $1 and status = 'pending' for update`,
    [refund.id],
  );
  const pending = still[0];
  if (pending === undefined) return { received: true, result: 'ignored', paymentId };
  await tx.query(
    `update payment_refunds set provider_ref = coalesce(provider_ref, $2), call_until = null where id = $1`,
    [pending.id, stripeRefund.id],
  );
  await settleRefund(ctx, tx, emit, payment, pending, outcome, stripeRefund.failure_reason ?? null);
  return { received: true, result: 'applied', paymentId };
}
