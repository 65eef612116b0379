import { inTenant, type ServiceContext } from '../../../core/context.ts';
import type { Queryable } from '../../../core/db/database.ts';
import { Conflict } from '../../../core/http/errors.ts';
import {
  lockPayment,
  PAYMENT_COLUMNS,
  type PaymentRow,
  type PaymentView,
  type StepArgs,
  type StepKind,
  toPayment,
} from '../payment-row.ts';
import { assertOperation } from '../states.ts';
import { callAndApply } from './call-and-apply.ts';
import { prepare } from './prepare.ts';
import { leaseEnd, outcomeUnknown, stepKey } from './step-keys.ts';

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
 * Runs one change of a payment through a provider call, as the verbs make it, and answers the payment.
 * On the payment locked (with no open step) the status is checked for the change (409 naming what it
 * needs), then `plan` answers the step's arguments or throws (400 for bad input). An open step found
 * first is resumed: when it is of the same kind (a retry after a timeout) its outcome answers this
 * request, otherwise this request is planned again on the payment it left.
 */
export async function changePayment(
  ctx: ServiceContext,
  paymentId: string,
  kind: Exclude<StepKind, 'create'>,
  plan: (row: PaymentRow) => StepArgs,
): Promise<PaymentView> {
  const prepared = await prepare(ctx, paymentId);
  for (;;) {
    const begun = await inTenant(ctx, async (tx) => {
      const row = await lockPayment(tx, paymentId);
      const now = ctx.clock.now();
      if (row.step !== null) {
        if (!resumable(row, now)) throw runningConflict(row);
        return { resumed: true, row: await claimStep(tx, row, now) };
      }
      assertOperation(row.id, row.status, kind);
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
    if (!begun.resumed || ran === kind) return toPayment(done);
  }
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
