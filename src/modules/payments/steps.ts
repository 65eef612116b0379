import { type Emit, inTenant, type ServiceContext } from '../../core/context.ts';
import type { Queryable } from '../../core/db/database.ts';
import { AppError, Conflict } from '../../core/http/errors.ts';
import {
  lockPayment,
  PAYMENT_COLUMNS,
  type PaymentRow,
  providerView,
  type StepArgs,
  type StepKind,
  savePayment,
  toPayment,
} from './payment-row.ts';
import type { PaymentProvider, ProviderOutcome } from './providers/provider.ts';
import { canTransition, type PaymentStatus } from './states.ts';
import { applyOutcome } from './verbs/apply-outcome.ts';
import type { PaymentSettings } from './verbs/config.ts';
import { type Prepared, prepare } from './verbs/prepare.ts';

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

type StepResult =
  | { kind: 'create'; providerRef: string | null }
  | { kind: 'confirm'; outcome: ProviderOutcome }
  | { kind: 'capture' }
  | { kind: 'cancel' };

const CLEAR_STEP = `step = null, step_key = null, step_args = null, step_state = null, step_until = null`;

function leaseEnd(now: number): string {
  return new Date(now + STEP_LEASE_MS).toISOString();
}

/** Records a new step on a locked payment without one. */
async function recordStep(
  tx: Queryable,
  row: PaymentRow,
  kind: StepKind,
  args: StepArgs,
  now: number,
): Promise<PaymentRow> {
  const seq = row.step_seq + 1;
  const { rows } = await tx.query<PaymentRow>(
    `update payments set step = $2, step_key = $3, step_args = $4, step_state = 'calling', step_until = $5,
            step_seq = $6
      where id = $1 and step is null returning ${PAYMENT_COLUMNS}`,
    [row.id, kind, stepKey(kind, row.id, seq), JSON.stringify(args), leaseEnd(now), seq],
  );
  const saved = rows[0];
  if (saved === undefined)
    throw new Conflict(`payment ${row.id} is ${row.status} with a provider call running`);
  return saved;
}

/** Takes over a locked payment's open step (its answer unknown, or its lease run out). */
async function claimStep(tx: Queryable, row: PaymentRow, now: number): Promise<PaymentRow> {
  const { rows } = await tx.query<PaymentRow>(
    `update payments set step_state = 'calling', step_until = $3 where id = $1 and step_key = $2
     returning ${PAYMENT_COLUMNS}`,
    [row.id, row.step_key, leaseEnd(now)],
  );
  const saved = rows[0];
  if (saved === undefined) throw new Error(`payment ${row.id} lost its step while locked`);
  return saved;
}

/** Whether a locked payment's open step may be taken over now. */
function resumable(row: PaymentRow, now: number): boolean {
  return row.step_state === 'unknown' || row.step_until === null || Date.parse(row.step_until) <= now;
}

function runningConflict(row: PaymentRow): Conflict {
  return new Conflict(
    `payment ${row.id} is ${row.status} with a ${row.step} still running at ${row.provider}; retry once it has finished`,
  );
}

/**
 * Runs one change of a payment through a provider call. `plan` sees the payment locked (with no open
 * step) and answers the step's arguments, or throws (409 for a status that does not allow it, 400 for bad
 * input). An open step found first is resumed: when it is of the same kind (a retry after a timeout) its
 * outcome answers this request, otherwise this request is planned again on the payment it left.
 */
export async function runStep(
  ctx: ServiceContext,
  paymentId: string,
  kind: Exclude<StepKind, 'create'>,
  plan: (row: PaymentRow) => StepArgs,
): Promise<PaymentRow> {
  const prepared = await prepare(ctx, paymentId);
  for (;;) {
    const begun = await inTenant(ctx, async (tx) => {
      const row = await lockPayment(tx, paymentId);
      const now = ctx.clock.now();
      if (row.step !== null) {
        if (!resumable(row, now)) throw runningConflict(row);
        return { resumed: true, row: await claimStep(tx, row, now) };
      }
      return { resumed: false, row: await recordStep(tx, row, kind, plan(row), now) };
    });
    const ran = begun.row.step;
    let done: PaymentRow;
    try {
      done = await callAndApply(ctx, prepared, begun.row);
    } catch (error) {
      // A resumed step of another kind that ended refused or overtaken is over: plan this request. (A
      // resumed create stays open when refused: its payment has no provider id to go on with.)
      if (!begun.resumed || ran === kind || ran === 'create' || outcomeUnknown(error)) throw error;
      continue;
    }
    if (!begun.resumed || ran === kind) return done;
  }
}

/**
 * Calls the provider for a payment's step (no transaction open) and applies the answer. A refusal clears
 * the step (the payment is as it was; a refused create removes the payment when `dropRefusedCreate`) and
 * throws; an unknown outcome marks the step `unknown` and throws, unless `keepUnknownCreate` and it is the
 * create: then the payment is answered without its provider id, which its next change or recovery fetches.
 */
export async function callAndApply(
  ctx: ServiceContext,
  prepared: Prepared,
  row: PaymentRow,
  options: { dropRefusedCreate?: boolean; keepUnknownCreate?: boolean } = {},
): Promise<PaymentRow> {
  const kind = row.step;
  const key = row.step_key;
  if (kind === null || key === null) return row;
  let result: StepResult;
  try {
    result = await callProvider(prepared.provider, row, kind, row.step_args ?? {}, key);
  } catch (error) {
    const unknown = outcomeUnknown(error);
    const left = await inTenant(ctx, async (tx) => {
      if (unknown || (kind === 'create' && options.dropRefusedCreate !== true)) {
        const { rows } = await tx.query<PaymentRow>(
          `update payments set step_state = 'unknown' where id = $1 and step_key = $2 returning ${PAYMENT_COLUMNS}`,
          [row.id, key],
        );
        return rows[0];
      }
      if (kind === 'create') {
        await tx.query('delete from payments where id = $1 and step_key = $2 and provider_ref is null', [
          row.id,
          key,
        ]);
        return undefined;
      }
      await tx.query(`update payments set ${CLEAR_STEP} where id = $1 and step_key = $2`, [row.id, key]);
      return undefined;
    });
    if (unknown && kind === 'create' && options.keepUnknownCreate === true && left !== undefined) return left;
    throw error;
  }
  const applied = await inTenant(ctx, (tx, emit) =>
    applyStep(ctx, tx, emit, row, key, result, prepared.settings),
  );
  if (applied.overtaken) {
    // The step is cleared (committed); the payment stays where a provider report moved it meanwhile.
    throw new Conflict(
      `payment ${row.id} is ${applied.row.status}: a provider report moved it there while its ${kind} ran, so the ${kind} was not applied`,
    );
  }
  return applied.row;
}

/** The status a confirmation starts from: a new payment method starts it over with that method attached. */
function confirmingFrom(row: PaymentRow, paymentMethod: string): PaymentStatus | undefined {
  if (row.status !== 'requires_payment_method' && paymentMethod === row.payment_method) return row.status;
  let status: PaymentStatus = row.status;
  if (status === 'requires_action' || status === 'requires_confirmation') {
    if (!canTransition(status, 'requires_payment_method')) return undefined;
    status = 'requires_payment_method';
  }
  if (status !== 'requires_payment_method') return undefined;
  return 'requires_confirmation';
}

async function callProvider(
  provider: PaymentProvider,
  row: PaymentRow,
  kind: StepKind,
  args: StepArgs,
  idempotencyKey: string,
): Promise<StepResult> {
  const view = providerView(row);
  const options = { idempotencyKey };
  switch (kind) {
    case 'create':
      return { kind, providerRef: (await provider.initiate(view, options)).providerRef };
    case 'confirm': {
      const paymentMethod = args.paymentMethod ?? row.payment_method ?? '';
      const status = confirmingFrom(row, paymentMethod) ?? row.status;
      const outcome = await provider.confirm({ ...view, status, paymentMethod }, paymentMethod, options);
      return { kind, outcome };
    }
    case 'capture':
      await provider.capture(view, args.amount ?? Number(row.amount_capturable), options);
      return { kind };
    case 'cancel':
      await provider.cancel(view, options);
      return { kind };
  }
}

/**
 * Applies a provider's answer to its step, in the second transaction: the step is cleared by a guarded
 * update (only while it still holds `key`), so a step applied by someone else (a request and recovery both
 * resuming it) is applied once; a payment a webhook moved on meanwhile keeps where it is.
 */
async function applyStep(
  ctx: ServiceContext,
  tx: Queryable,
  emit: Emit,
  before: PaymentRow,
  key: string,
  result: StepResult,
  settings: PaymentSettings,
): Promise<{ row: PaymentRow; overtaken: boolean }> {
  const { rows } = await tx.query<PaymentRow>(
    `update payments set ${CLEAR_STEP} where id = $1 and step_key = $2 returning ${PAYMENT_COLUMNS}`,
    [before.id, key],
  );
  const row = rows[0];
  // Applied already by whoever resumed the step: the payment as that left it.
  if (row === undefined) return { row: await lockPayment(tx, before.id), overtaken: false };
  const now = ctx.clock.now();
  const args = before.step_args ?? {};
  switch (result.kind) {
    case 'create': {
      const saved = await savePayment(tx, row.id, { provider_ref: result.providerRef }, now);
      await emit('payment.created', { paymentId: saved.id, payment: toPayment(saved) });
      return { row: saved, overtaken: false };
    }
    case 'confirm': {
      const paymentMethod = args.paymentMethod ?? row.payment_method ?? '';
      const from = confirmingFrom(row, paymentMethod);
      if (from === undefined) return { row, overtaken: true };
      let current = row;
      if (from !== row.status || paymentMethod !== row.payment_method) {
        current = await savePayment(
          tx,
          row.id,
          { status: from, payment_method: paymentMethod, last_error: null, next_action: null },
          now,
        );
      }
      return applyIfLegal(ctx, tx, emit, current, result.outcome, settings);
    }
    case 'capture':
      return applyIfLegal(ctx, tx, emit, row, { status: 'succeeded' }, settings, {
        captured: args.amount ?? Number(row.amount_capturable),
      });
    case 'cancel':
      return applyIfLegal(ctx, tx, emit, row, { status: 'canceled' }, settings, {
        cancellation_reason: args.reason ?? null,
      });
  }
}

/**
 * The outcome, when the payment may still take it; `overtaken` when a webhook moved it on meanwhile to
 * where the outcome cannot follow (the payment stays there).
 */
async function applyIfLegal(
  ctx: ServiceContext,
  tx: Queryable,
  emit: Emit,
  row: PaymentRow,
  outcome: ProviderOutcome,
  settings: PaymentSettings,
  extra: Parameters<typeof applyOutcome>[6] = {},
): Promise<{ row: PaymentRow; overtaken: boolean }> {
  const to: PaymentStatus = outcome.status === 'failed' ? 'requires_payment_method' : outcome.status;
  if (to !== row.status && !canTransition(row.status, to)) return { row, overtaken: true };
  return { row: await applyOutcome(ctx, tx, emit, row, outcome, settings, extra), overtaken: false };
}

/**
 * Recovery of one payment's open step whose lease ran out (its instance died between the call and the
 * apply): the same call again, with the same idempotency key, then the apply. Answers whether it ran.
 */
export async function resumeStep(ctx: ServiceContext, paymentId: string): Promise<boolean> {
  const prepared = await prepare(ctx, paymentId);
  const claimed = await inTenant(ctx, async (tx) => {
    const row = await lockPayment(tx, paymentId);
    const now = ctx.clock.now();
    if (row.step === null || row.step_until === null || Date.parse(row.step_until) > now) return undefined;
    return claimStep(tx, row, now);
  });
  if (claimed === undefined) return false;
  try {
    await callAndApply(ctx, prepared, claimed);
  } catch (error) {
    // Refused or overtaken: the step is over all the same. Unknown: tried again after the lease.
    if (outcomeUnknown(error)) throw error;
  }
  return true;
}
