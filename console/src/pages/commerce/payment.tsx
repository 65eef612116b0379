import { useSignal } from '@preact/signals';
import type { ComponentChildren } from 'preact';
import { api } from '../../lib/api.ts';
import { useLoad } from '../../lib/load.ts';
import { formatMoney } from '../../lib/money.ts';
import { Link, tenantPath } from '../../lib/router.tsx';
import { ErrorNotice, Loading, Page, Time } from '../../lib/ui.tsx';
import type { PageProps } from '../page.ts';
import { CancelButton, CaptureForm, RefundForm } from './payment-actions.tsx';
import { PaymentTransactions, Refunds, Timeline } from './payment-timeline.tsx';
import { StatusBadge } from './payments.tsx';
import type { Payment } from './types.ts';

function Details(props: { payment: Payment }) {
  const { payment: p } = props;
  const rows: [string, ComponentChildren][] = [
    ['Status', <StatusBadge status={p.status} key="s" />],
    ['Amount', formatMoney(p.amount, p.currency)],
    ['Captured', formatMoney(p.amountCaptured, p.currency)],
    ['Authorized, not captured', formatMoney(p.amountCapturable, p.currency)],
    ['Refunded', formatMoney(p.amountRefunded, p.currency)],
    ['Platform fee', formatMoney(p.applicationFee, p.currency)],
    ['Capture', p.captureMethod],
    ['Customer', p.customer?.id ?? 'nobody named (the world account pays)'],
    ['Seller', p.seller ?? '—'],
    ['Description', p.description ?? '—'],
    [
      'Provider',
      `${p.provider}${p.providerRef === null ? '' : ` (${p.providerRef})`}${p.livemode ? ', live' : ', test mode'}`,
    ],
    ['Payment method', p.paymentMethod ?? '—'],
    ['Created', <Time value={p.createdAt} key="c" />],
  ];
  if (p.lastError !== null)
    rows.push(['Last error', `${p.lastError.message} (${p.lastError.declineCode ?? p.lastError.code})`]);
  if (p.auctionId !== null) {
    rows.push([
      'Auction',
      <Link to={tenantPath(`auctions/${encodeURIComponent(p.auctionId)}`)} key="a">
        {p.auctionId}
      </Link>,
    ]);
  }
  return (
    <dl class="commerce-details">
      {rows.map(([label, value]) => (
        <div key={label} class="commerce-detail">
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** What the payment's status allows from the console: capture, refund, cancel. */
function Actions(props: { payment: Payment; changed: () => void }) {
  const { payment, changed } = props;
  const refundable = payment.status === 'succeeded' && payment.amountCaptured > payment.amountRefunded;
  const cancellable = payment.status !== 'succeeded' && payment.status !== 'canceled';
  if (payment.status !== 'requires_capture' && !refundable && !cancellable) return null;
  return (
    <div class="commerce-actions">
      {payment.status === 'requires_capture' ? <CaptureForm payment={payment} done={changed} /> : null}
      {refundable ? <RefundForm payment={payment} done={changed} /> : null}
      {cancellable ? (
        <p>
          <CancelButton payment={payment} done={changed} />
        </p>
      ) : null}
    </div>
  );
}

/** One payment: where it stands, capture, refund or cancel it, its timeline, refunds and ledger postings. */
export function PaymentPage(props: PageProps) {
  const paymentId = props.params.paymentId ?? '';
  // Bumped after every change the page makes: the timeline, refunds and ledger load again.
  const version = useSignal(0);
  const payment = useLoad(async () => {
    const { data } = await api.GET('/v1/payments/{paymentId}', { params: { path: { paymentId } } });
    return data;
  }, [paymentId, version.value]);
  const p = payment.data.value;
  const changed = () => {
    version.value++;
  };
  return (
    <Page title={`Payment ${paymentId}`}>
      <p>
        <Link to={tenantPath('payments')}>All payments</Link>
      </p>
      {payment.error.value === undefined ? null : <ErrorNotice error={payment.error.value} />}
      {p === undefined ? (
        payment.loading.value ? (
          <Loading what="the payment" />
        ) : null
      ) : (
        <>
          <Details payment={p} />
          <Actions payment={p} changed={changed} key={`${p.status}-${p.amountRefunded}`} />
          <Timeline payment={p} version={version.value} />
          <Refunds payment={p} version={version.value} />
          <PaymentTransactions payment={p} version={version.value} />
        </>
      )}
    </Page>
  );
}
