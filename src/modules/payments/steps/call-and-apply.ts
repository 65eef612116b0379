import { inTenant, type ServiceContext } from '../../../core/context.ts';
import { Conflict } from '../../../core/http/errors.ts';
import {
  lockPayment,
  PAYMENT_COLUMNS,
  type PaymentRow,
  providerView,
  type StepArgs,
  type StepKind,
  savePayment,
  toPayment,
} from '../payment-row.ts';
import type { PaymentProvider, ProviderOutcome } from '../providers/provider.ts';
import { canTransition, type PaymentStatus } from '../states.ts';
import { type ApplyScope, applyOutcome, type OutcomeExtra } from './apply-outcome.ts';
import type { Prepared } from './prepare.ts';
import { CLEAR_STEP, outcomeUnknown } from './step-keys.ts';

type StepResult =
  | { kind: 'create'; providerRef: string | null }
  | { kind: 'confirm'; outcome: ProviderOutcome }
  | { kind: 'capture' }
  | { kind: 'cancel' };

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
    applyStep({ ctx, tx, emit, settings: prepared.settings }, row, key, result),
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
  scope: ApplyScope,
  before: PaymentRow,
  key: string,
  result: StepResult,
): Promise<{ row: PaymentRow; overtaken: boolean }> {
  const { ctx, tx, emit } = scope;
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
      return applyIfLegal(scope, current, result.outcome);
    }
    case 'capture':
      return applyIfLegal(
        scope,
        row,
        { status: 'succeeded' },
        {
          captured: args.amount ?? Number(row.amount_capturable),
        },
      );
    case 'cancel':
      return applyIfLegal(
        scope,
        row,
        { status: 'canceled' },
        {
          cancellation_reason: args.reason ?? null,
        },
      );
  }
}

/**
 * The outcome, when the payment may still take it; `overtaken` when a webhook moved it on meanwhile to
 * where the outcome cannot follow (the payment stays there).
 */
async function applyIfLegal(
  scope: ApplyScope,
  row: PaymentRow,
  outcome: ProviderOutcome,
  extra: OutcomeExtra = {},
): Promise<{ row: PaymentRow; overtaken: boolean }> {
  const to: PaymentStatus = outcome.status === 'failed' ? 'requires_payment_method' : outcome.status;
  if (to !== row.status && !canTransition(row.status, to)) return { row, overtaken: true };
  return { row: await applyOutcome(scope, row, outcome, extra), overtaken: false };
}
