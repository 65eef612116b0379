import type { Emit, ServiceContext } from '../../../core/context.ts';
import type { Queryable } from '../../../core/db/database.ts';
import { capturePostings, platformFee, postTransaction } from '../ledger.ts';
import { type PaymentChange, type PaymentRow, partiesOf, savePayment, toPayment } from '../payment-row.ts';
import type { ProviderOutcome } from '../providers/provider.ts';
import type { PaymentSettings } from '../settings.ts';
import { eventOfStatus, type PaymentStatus, transition } from '../states.ts';

/** Where a provider's answer is applied: the tenant's transaction, its events, its payments settings. */
export interface ApplyScope {
  ctx: ServiceContext;
  tx: Queryable;
  emit: Emit;
  settings: PaymentSettings;
}

/** More to save with an outcome; `captured`: the amount a capture took (default: the whole amount). */
export type OutcomeExtra = PaymentChange & { captured?: number };

/**
 * Moves a locked payment to where the provider says it is, through the transition table, with its
 * event; a capture (automatic, or `captured` given) posts the sale to the ledger in the same transaction.
 */
export async function applyOutcome(
  { ctx, tx, emit, settings }: ApplyScope,
  row: PaymentRow,
  outcome: ProviderOutcome,
  extra: OutcomeExtra = {},
): Promise<PaymentRow> {
  const now = ctx.clock.now();
  const { captured, ...more } = extra;
  const failed = outcome.status === 'failed';
  const to: PaymentStatus = failed ? 'requires_payment_method' : outcome.status;
  if (to === row.status && !failed) return row;
  transition(row.id, row.status, to);
  const change: PaymentChange = { ...more, status: to, next_action: null };
  if (outcome.status === 'failed') {
    change.last_error = { code: outcome.code, declineCode: outcome.declineCode, message: outcome.message };
  } else if (outcome.status === 'requires_action') {
    change.next_action = outcome.nextAction;
  } else {
    change.last_error = null;
  }
  if (to === 'requires_capture') change.amount_capturable = Number(row.amount);
  if (to === 'canceled') change.amount_capturable = 0;
  if (to === 'succeeded') {
    const amount = captured ?? Number(row.amount);
    const fee = row.seller === null ? 0 : platformFee(amount, settings);
    Object.assign(change, { amount_captured: amount, amount_capturable: 0, application_fee: fee });
    await postTransaction(tx, ctx.tenantId, {
      kind: 'capture',
      paymentId: row.id,
      refundId: null,
      postings: capturePostings(partiesOf(row), amount, fee),
      at: now,
    });
  }
  const saved = await savePayment(tx, row.id, change, now);
  const type = eventOfStatus(to, failed);
  if (type !== undefined) await emit(type, { paymentId: saved.id, payment: toPayment(saved) });
  return saved;
}
