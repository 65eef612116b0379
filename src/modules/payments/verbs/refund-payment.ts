import type { Static } from 'typebox';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import { PG_ERROR, pgErrorCode, type Queryable } from '../../../core/db/database.ts';
import { InvalidRequest } from '../../../core/http/errors.ts';
import { type IdempotencyBinding, keyReused } from '../../../core/http/idempotency.ts';
import { newId } from '../ids.ts';
import {
  lockPayment,
  REFUND_COLUMNS,
  type RefundRow,
  type RefundView,
  readRefund,
  savePayment,
  toRefund,
} from '../payment-row.ts';
import { resumeRefund, sendRefund } from '../refunds/send-refund.ts';
import type { RefundInput } from '../schema/refund.ts';
import { assertOperation } from '../states.ts';
import { prepare } from '../steps/prepare.ts';
import { outcomeUnknown, STEP_LEASE_MS } from '../steps/step-keys.ts';

/**
 * Refunds a succeeded payment, in whole (the default: what is left) or in part. The refund is recorded
 * first (`pending`, its amount counted in `amountRefunded` with the payment locked, so refunds add up to at
 * most the captured amount whoever refunds at once), then the provider is asked with no transaction open
 * and the idempotency key `svc-refund-<re>`, then its answer is applied (guarded: once). A succeeded refund
 * posts the capture's reversal, with the fee given back in proportion. A provider that refuses fails the
 * refund (its amount released) and answers its error; one that does not answer leaves the refund `pending`,
 * asked again with the same key by recovery.
 */
export async function refundPayment(
  ctx: ServiceContext,
  input: Static<typeof RefundInput>,
): Promise<RefundView> {
  return (await refundKeyed(ctx, input, undefined)).refund;
}

/** A keyed refund's answer: the refund, and whether an earlier attempt under the key had made it. */
export interface KeyedRefund {
  refund: RefundView;
  replayed: boolean;
}

/**
 * `refundPayment` under the request's Idempotency-Key (`binding`): the refund carries the key, and one
 * made under it before (an attempt whose answer was lost) is answered instead of refunding again; it is
 * looked for first, with the payment locked, before the amount left is even checked.
 */
export async function refundKeyed(
  ctx: ServiceContext,
  input: Static<typeof RefundInput>,
  binding: IdempotencyBinding | undefined,
): Promise<KeyedRefund> {
  const { provider } = await prepare(ctx, input.paymentId);
  const recorded = await inTenant(ctx, async (tx, emit) => {
    const row = await lockPayment(tx, input.paymentId);
    const found = binding === undefined ? undefined : await refundUnder(tx, binding);
    if (found !== undefined) return { payment: row, refund: found, found: true };
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
    const at = new Date(now).toISOString();
    const { rows } = await tx
      .query<RefundRow>(
        `insert into payment_refunds (tenant_id, id, payment_id, amount, currency, reason, status, provider_ref,
                                      failure_reason, call_until, created_at, updated_at,
                                      idempotency_key, idempotency_fingerprint)
         values ($1, $2, $3, $4, $5, $6, 'pending', null, null, $7, $8, $8, $9, $10) returning ${REFUND_COLUMNS}`,
        [
          ctx.tenantId,
          id,
          row.id,
          amount,
          row.currency,
          input.reason ?? null,
          new Date(now + STEP_LEASE_MS).toISOString(),
          at,
          binding?.key ?? null,
          binding?.fingerprint ?? null,
        ],
      )
      .catch((error: unknown) => {
        // The key made a refund of another payment meanwhile (this payment's are serialised by its lock).
        if (binding !== undefined && pgErrorCode(error) === PG_ERROR.uniqueViolation) throw keyReused();
        throw error;
      });
    const inserted = rows[0];
    if (inserted === undefined) throw new Error('refund insert returned nothing');
    await emit('refund.created', { refundId: id, paymentId: row.id, refund: toRefund(inserted) });
    // Counted at once, pending or not, so no other refund can take the same money meanwhile.
    const payment = await savePayment(tx, row.id, { amount_refunded: refundedBefore + amount }, now);
    return { payment, refund: inserted, found: false };
  });
  if (recorded.found) return { refund: await resumedRefund(ctx, recorded.refund), replayed: true };
  return { refund: await sendRefund(ctx, provider, recorded.payment, recorded.refund), replayed: false };
}

/** The refund an earlier attempt made under the key, when it was the same request. */
async function refundUnder(tx: Queryable, binding: IdempotencyBinding): Promise<RefundRow | undefined> {
  const { rows } = await tx.query<RefundRow & { idempotency_fingerprint: string | null }>(
    `select ${REFUND_COLUMNS}, idempotency_fingerprint from payment_refunds where idempotency_key = $1`,
    [binding.key],
  );
  const found = rows[0];
  if (found !== undefined && found.idempotency_fingerprint !== binding.fingerprint) throw keyReused();
  return found;
}

/**
 * A refund found under its key, sent first when the attempt that made it died before the provider's
 * answer was applied (its lease ran out): asked again with the same provider key, so it refunds once.
 */
async function resumedRefund(ctx: ServiceContext, refund: RefundRow): Promise<RefundView> {
  if (refund.call_until === null) return toRefund(refund);
  try {
    await resumeRefund(ctx, refund.id);
  } catch (error) {
    if (!outcomeUnknown(error)) throw error;
  }
  return toRefund(await readRefund(ctx, refund.id));
}
