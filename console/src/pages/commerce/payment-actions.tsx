import { useSignal } from '@preact/signals';
import { api } from '../../lib/api.ts';
import { currencyDigits, formatMoney, parseMoney } from '../../lib/money.ts';
import { ConfirmButton, ErrorNotice, Field } from '../../lib/ui.tsx';
import type { Payment } from './types.ts';

/** Minor units as a person types them (`2550` EUR -> `25.50`), to prefill an amount field. */
function majorUnits(amount: number, currency: string): string {
  const digits = currencyDigits(currency);
  return (amount / 10 ** digits).toFixed(digits);
}

/** What an amount field holds, in minor units; throws (shown by the form) when it is not an amount. */
function amountOf(text: string, payment: Payment, most: number): number {
  const amount = parseMoney(text, payment.currency);
  if (amount === undefined || amount <= 0) {
    throw new Error(
      `"${text}" is not an amount in ${payment.currency}: type it like ${majorUnits(most, payment.currency)}`,
    );
  }
  return amount;
}

/** Capture an authorized payment, in whole or in part (the rest is released). */
export function CaptureForm(props: { payment: Payment; done: () => void }) {
  const { payment } = props;
  const amount = useSignal(majorUnits(payment.amountCapturable, payment.currency));
  const busy = useSignal(false);
  const error = useSignal<unknown>(undefined);
  return (
    <form
      class="commerce-form"
      aria-labelledby="capture-title"
      onSubmit={async (event) => {
        event.preventDefault();
        busy.value = true;
        error.value = undefined;
        try {
          const amountToCapture = amountOf(amount.value, payment, payment.amountCapturable);
          await api.POST('/v1/payments/{paymentId}/capture', {
            params: { path: { paymentId: payment.id } },
            body: { amountToCapture },
          });
          props.done();
        } catch (caught) {
          error.value = caught;
        } finally {
          busy.value = false;
        }
      }}
    >
      <h2 id="capture-title">Capture</h2>
      <p class="hint">
        {formatMoney(payment.amountCapturable, payment.currency)} is authorized. Capture all of it or less:
        the rest is released to the customer.
      </p>
      <Field label={`Amount to capture (${payment.currency})`} id="capture-amount">
        <input
          id="capture-amount"
          inputMode="decimal"
          value={amount.value}
          onInput={(event) => {
            amount.value = event.currentTarget.value;
          }}
        />
      </Field>
      <button type="submit" disabled={busy.value}>
        Capture
      </button>
      {error.value === undefined ? null : <ErrorNotice error={error.value} />}
    </form>
  );
}

const REFUND_REASONS = ['requested_by_customer', 'duplicate', 'fraudulent'] as const;
type RefundReason = (typeof REFUND_REASONS)[number];

/** Refund a succeeded payment, in whole or in part, after the user confirms. */
export function RefundForm(props: { payment: Payment; done: () => void }) {
  const { payment } = props;
  const left = payment.amountCaptured - payment.amountRefunded;
  const amount = useSignal(majorUnits(left, payment.currency));
  const reason = useSignal<RefundReason | ''>('');
  return (
    <form class="commerce-form" aria-labelledby="refund-title" onSubmit={(event) => event.preventDefault()}>
      <h2 id="refund-title">Refund</h2>
      <p class="hint">
        {formatMoney(left, payment.currency)} of {formatMoney(payment.amountCaptured, payment.currency)}{' '}
        captured can still be refunded.
      </p>
      <Field label={`Amount to refund (${payment.currency})`} id="refund-amount">
        <input
          id="refund-amount"
          inputMode="decimal"
          value={amount.value}
          onInput={(event) => {
            amount.value = event.currentTarget.value;
          }}
        />
      </Field>
      <Field label="Reason" id="refund-reason">
        <select
          id="refund-reason"
          value={reason.value}
          onChange={(event) => {
            reason.value = event.currentTarget.value as RefundReason | '';
          }}
        >
          <option value="">None given</option>
          {REFUND_REASONS.map((r) => (
            <option value={r} key={r}>
              {r.replaceAll('_', ' ')}
            </option>
          ))}
        </select>
      </Field>
      <ConfirmButton
        label="Refund"
        confirm={`Refund ${amount.value} ${payment.currency} of payment ${payment.id}? Money goes back to the customer; this cannot be undone.`}
        onConfirm={async () => {
          const refund = amountOf(amount.value, payment, left);
          await api.POST('/v1/payments/{paymentId}/refunds', {
            params: { path: { paymentId: payment.id } },
            body: { amount: refund, ...(reason.value === '' ? {} : { reason: reason.value }) },
          });
          props.done();
        }}
      />
    </form>
  );
}

/** Cancel a payment that has not succeeded (confirmed first). */
export function CancelButton(props: { payment: Payment; done: () => void }) {
  return (
    <ConfirmButton
      label="Cancel payment"
      confirm={`Cancel payment ${props.payment.id}? An authorization is released; the customer is not charged.`}
      onConfirm={async () => {
        await api.POST('/v1/payments/{paymentId}/cancel', {
          params: { path: { paymentId: props.payment.id } },
          body: {},
        });
        props.done();
      }}
    />
  );
}
