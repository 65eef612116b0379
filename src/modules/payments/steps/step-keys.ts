import { AppError } from '../../../core/http/errors.ts';
import type { StepKind } from '../payment-row.ts';

/**
 * How long a provider call may hold its step before another request or instance takes it over. Stripe's
 * SDK gives up after 20 s and one retry; a step still `calling` after this had its instance die.
 */
export const STEP_LEASE_MS = 2 * 60_000;

/**
 * A payment's provider calls run outside its transaction, in three moves:
 * 1. record the step (kind, arguments, the provider idempotency key, a lease) in one transaction, with the
 *    payment locked only for that;
 * 2. call the provider with no transaction open, with that idempotency key;
 * 3. apply the answer in a second transaction, guarded on the step's key (`where step_key = $key`): only
 *    the request (or recovery) that still holds the step applies it, once.
 * While a step is `calling` within its lease, another change of the payment answers 409 `conflict` naming
 * its status and the step. A step whose answer never came (`unknown`: a timeout, a lost response) is
 * resumed by the next request on the payment; one whose lease ran out (its instance died) also by the
 * settlement worker. Resuming calls the provider again with the same key, so the provider does it once.
 */
export function stepKey(kind: StepKind, paymentId: string, seq: number): string {
  return kind === 'create' ? `svc-create-${paymentId}` : `svc-${kind}-${paymentId}-${seq}`;
}

/** A provider error that decides nothing: the call may or may not have happened at the provider. */
export function outcomeUnknown(error: unknown): boolean {
  return !(error instanceof AppError) || error.status >= 500;
}

export const CLEAR_STEP = `step = null, step_key = null, step_args = null, step_state = null, step_until = null`;

export function leaseEnd(now: number): string {
  return new Date(now + STEP_LEASE_MS).toISOString();
}
