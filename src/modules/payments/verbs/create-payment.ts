import type { Static } from 'typebox';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import { assertCurrency } from '../../../core/currencies.ts';
import { PG_ERROR, pgErrorCode, type Queryable } from '../../../core/db/database.ts';
import { Conflict } from '../../../core/http/errors.ts';
import { type IdempotencyBinding, keyReused } from '../../../core/http/idempotency.ts';
import { checkCustomer, payingActor } from '../customers.ts';
import { newId } from '../ids.ts';
import {
  PAYMENT_COLUMNS,
  type PaymentRow,
  type PaymentView,
  readPayment,
  toPayment,
} from '../payment-row.ts';
import { providerFor } from '../providers/index.ts';
import type { CreatePaymentInput } from '../schema/payment.ts';
import { paymentsConfig } from '../settings.ts';
import { callAndApply } from '../steps/call-and-apply.ts';
import { resumeStep } from '../steps/run-step.ts';
import { outcomeUnknown, STEP_LEASE_MS, stepKey } from '../steps/step-keys.ts';

export type NewPayment = Static<typeof CreatePaymentInput> & { auctionId?: string };

/** A keyed create's answer: the payment, and whether an earlier attempt under the key had made it. */
export interface KeyedPayment {
  payment: PaymentView;
  replayed: boolean;
}

/**
 * Creates a payment with the tenant's provider: `requires_payment_method`, or `requires_confirmation`
 * when a payment method comes with it. A session token pays as its own actor; an API key names the
 * customer (an Actor, created on first use) or nobody.
 */
export async function createPayment(
  ctx: ServiceContext,
  input: Static<typeof CreatePaymentInput>,
): Promise<PaymentView> {
  return (await createKeyedPayment(ctx, input, undefined)).payment;
}

/**
 * `createPayment` under the request's Idempotency-Key (`binding`): the payment carries the key, and one
 * made under it before (an attempt whose answer was lost: its instance died, or it answered a 5xx) is
 * answered instead of making another, its create resumed if its provider call never finished.
 */
export async function createKeyedPayment(
  ctx: ServiceContext,
  input: Static<typeof CreatePaymentInput>,
  binding: IdempotencyBinding | undefined,
): Promise<KeyedPayment> {
  assertCurrency(input.currency);
  checkCustomer(ctx.principal, input.customer);
  return createRecord(ctx, input, binding);
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
  return (await createRecord(ctx, input, undefined)).payment;
}

async function createRecord(
  ctx: ServiceContext,
  input: NewPayment,
  binding: IdempotencyBinding | undefined,
): Promise<KeyedPayment> {
  const settings = await paymentsConfig(ctx);
  const provider = await providerFor(ctx, settings.provider);
  const now = ctx.clock.now();
  const id = newId('payment', now);
  const captureMethod = input.captureMethod ?? 'automatic';
  const status = input.paymentMethod === undefined ? 'requires_payment_method' : 'requires_confirmation';
  const at = new Date(now).toISOString();
  let made: { row: PaymentRow; found: boolean };
  try {
    made = await inTenant(ctx, async (tx) => {
      const customer = await payingActor(tx, ctx, input.customer);
      const { rows } = await tx.query<PaymentRow>(
        `insert into payments (tenant_id, id, amount, currency, capture_method, status, customer_actor_id, seller, description,
                               metadata, auction_id, provider, provider_ref, payment_method, livemode, created_at, updated_at,
                               step, step_key, step_args, step_state, step_until, step_seq,
                               idempotency_key, idempotency_fingerprint)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, null, $13, $14, $15, $15,
                 'create', $16, '{}'::jsonb, 'calling', $17, 1, $18, $19)
         on conflict (tenant_id, idempotency_key) where idempotency_key is not null do nothing
         returning ${PAYMENT_COLUMNS}`,
        [
          ctx.tenantId,
          id,
          input.amount,
          input.currency,
          captureMethod,
          status,
          customer?.id ?? null,
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
          binding?.key ?? null,
          binding?.fingerprint ?? null,
        ],
      );
      const inserted = rows[0];
      if (inserted !== undefined) return { row: inserted, found: false };
      if (binding === undefined) throw new Error('payment insert returned nothing');
      return { row: await madeUnder(tx, binding), found: true };
    });
  } catch (error) {
    if (pgErrorCode(error) === PG_ERROR.uniqueViolation && input.auctionId !== undefined) {
      throw new Conflict(`auction ${input.auctionId} already has a payment`);
    }
    throw error;
  }
  if (made.found) return { payment: await resumedCreate(ctx, made.row), replayed: true };
  const saved = await callAndApply(ctx, { provider, settings }, made.row, {
    dropRefusedCreate: true,
    keepUnknownCreate: true,
  });
  return { payment: toPayment(saved), replayed: false };
}

/** The payment an earlier attempt made under the key, when it was the same request. */
async function madeUnder(tx: Queryable, binding: IdempotencyBinding): Promise<PaymentRow> {
  const { rows } = await tx.query<PaymentRow & { idempotency_fingerprint: string | null }>(
    `select ${PAYMENT_COLUMNS}, idempotency_fingerprint from payments where idempotency_key = $1`,
    [binding.key],
  );
  const found = rows[0];
  // Gone between the insert and this read: its provider refused it, and that answer is the key's.
  if (found === undefined) throw new Conflict('a request with this Idempotency-Key just finished; retry it');
  if (found.idempotency_fingerprint !== binding.fingerprint) throw keyReused();
  return found;
}

/**
 * A payment found under its key, with its create finished first when the attempt that made it died
 * before the provider's answer was applied (the step's lease ran out): asked again with the same provider
 * key, so the provider makes one. An answer still unknown leaves it as a lost answer does: no providerRef.
 */
async function resumedCreate(ctx: ServiceContext, row: PaymentRow): Promise<PaymentView> {
  if (row.step !== 'create') return toPayment(row);
  try {
    await resumeStep(ctx, row.id);
  } catch (error) {
    if (!outcomeUnknown(error)) throw error;
  }
  return toPayment(await readPayment(ctx, row.id));
}
