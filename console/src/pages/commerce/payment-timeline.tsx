import { api } from '../../lib/api.ts';
import { Listing } from '../../lib/list.tsx';
import { useLoad } from '../../lib/load.ts';
import { formatMoney } from '../../lib/money.ts';
import { EmptyState, ErrorNotice, Loading, Table, Time } from '../../lib/ui.tsx';
import { StatusBadge } from './payments.tsx';
import type { LedgerTransaction, Payment, Refund, TenantEvent } from './types.ts';

/** What an event says about the payment: its status then, or the refund's amount and status. */
function eventSummary(event: TenantEvent, currency: string) {
  const data = event.data as { payment?: { status?: string }; refund?: { amount?: number; status?: string } };
  if (data.refund !== undefined) {
    return (
      <>
        {formatMoney(data.refund.amount, currency)}{' '}
        {data.refund.status === undefined ? null : <StatusBadge status={data.refund.status} />}
      </>
    );
  }
  return data.payment?.status === undefined ? null : <StatusBadge status={data.payment.status} />;
}

/** Who caused an event, from its trace: an API key, a console user, an end user, or the service. */
function causedBy(event: TenantEvent): string {
  const actor = event.trace.actor as { kind?: string; id?: string } | undefined;
  const who = actor?.id === undefined ? 'the service' : `${actor.kind ?? 'actor'} ${actor.id}`;
  return `${who} (${event.trace.origin})`;
}

/** The payment's events, oldest first (GET /v1/payments/:paymentId/events), every page. */
export function Timeline(props: { payment: Payment; version: number }) {
  const { payment } = props;
  const events = useLoad(async () => {
    const all: TenantEvent[] = [];
    for await (const event of api.paginate('/v1/payments/{paymentId}/events', {
      params: { path: { paymentId: payment.id }, query: { limit: 100 } },
    })) {
      all.push(event);
    }
    return all;
  }, [payment.id, props.version]);
  const list = events.data.value;
  return (
    <section class="commerce-panel" aria-labelledby="payment-timeline">
      <h2 id="payment-timeline">Timeline</h2>
      {events.error.value === undefined ? null : <ErrorNotice error={events.error.value} />}
      {list === undefined ? (
        events.loading.value ? (
          <Loading what="the timeline" />
        ) : null
      ) : list.length === 0 ? (
        <EmptyState title="No events for this payment.">
          <p>Events are kept 30 days; a payment the provider has not answered yet has none.</p>
        </EmptyState>
      ) : (
        <ol class="commerce-timeline">
          {list.map((event) => (
            <li key={event.id}>
              <Time value={event.created_at} /> <code>{event.type}</code>{' '}
              {eventSummary(event, payment.currency)}
              <div class="commerce-muted">by {causedBy(event)}</div>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** The payment's refunds, oldest first. */
export function Refunds(props: { payment: Payment; version: number }) {
  const { payment } = props;
  const refunds = useLoad(async () => {
    const { data } = await api.GET('/v1/payments/{paymentId}/refunds', {
      params: { path: { paymentId: payment.id }, query: { limit: 100 } },
    });
    return data.data;
  }, [payment.id, props.version]);
  const list = refunds.data.value;
  return (
    <section class="commerce-panel" aria-labelledby="payment-refunds">
      <h2 id="payment-refunds">Refunds</h2>
      {refunds.error.value === undefined ? null : <ErrorNotice error={refunds.error.value} />}
      {list === undefined ? (
        refunds.loading.value ? (
          <Loading what="refunds" />
        ) : null
      ) : list.length === 0 ? (
        <EmptyState title="No refunds.">
          <p>A succeeded payment can be refunded in whole or in part above.</p>
        </EmptyState>
      ) : (
        <Table
          caption="Refunds, oldest first"
          hideCaption
          head={['Refund', 'Amount', 'Status', 'Reason', 'Created']}
        >
          {list.map((refund: Refund) => (
            <tr key={refund.id}>
              <td>
                <code>{refund.id}</code>
              </td>
              <td>{formatMoney(refund.amount, refund.currency)}</td>
              <td>
                <StatusBadge status={refund.status} />
                {refund.failureReason === null ? null : (
                  <div class="commerce-muted">{refund.failureReason}</div>
                )}
              </td>
              <td>{refund.reason ?? '—'}</td>
              <td>
                <Time value={refund.createdAt} />
              </td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}

/** The postings of one ledger transaction, one line each. */
export function Postings(props: { transaction: LedgerTransaction }) {
  return (
    <ul class="commerce-postings">
      {props.transaction.postings.map((posting, i) => (
        <li key={i}>
          <code>{posting.account}</code>{' '}
          <span class={posting.amount < 0 ? 'commerce-debit' : 'commerce-credit'}>
            {formatMoney(posting.amount, posting.currency)}
          </span>
        </li>
      ))}
    </ul>
  );
}

/** The ledger transactions the payment posted (captures, refunds), newest first. */
export function PaymentTransactions(props: { payment: Payment; version: number }) {
  const { payment } = props;
  const transactions = useLoad(async () => {
    const { data } = await api.GET('/v1/ledger/transactions', {
      params: { query: { paymentId: payment.id, limit: 100 } },
    });
    return data;
  }, [payment.id, props.version]);
  return (
    <section class="commerce-panel" aria-labelledby="payment-ledger">
      <h2 id="payment-ledger">Ledger transactions</h2>
      <Listing
        load={transactions}
        what="ledger transactions"
        empty={
          <EmptyState title="Nothing posted yet.">
            <p>A capture posts a transaction; so does each refund that succeeds.</p>
          </EmptyState>
        }
      >
        {(page) => (
          <Table
            caption="The payment's ledger transactions, newest first"
            hideCaption
            head={['Transaction', 'Kind', 'Postings', 'Created']}
          >
            {page.data.map((transaction) => (
              <tr key={transaction.id}>
                <td>
                  <code>{transaction.id}</code>
                </td>
                <td>{transaction.kind}</td>
                <td>
                  <Postings transaction={transaction} />
                </td>
                <td>
                  <Time value={transaction.createdAt} />
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Listing>
    </section>
  );
}
