import { api } from '../../lib/api.ts';
import { SelectField } from '../../lib/fields.tsx';
import { Listing, Pager } from '../../lib/list.tsx';
import { useLoad } from '../../lib/load.ts';
import { formatMoney } from '../../lib/money.ts';
import { Link, query, setQuery, tenantPath } from '../../lib/router.tsx';
import { EmptyState, Field, Page, Table, Time } from '../../lib/ui.tsx';
import { PAYMENT_STATUSES, type Payment, type PaymentStatus, statusLabel } from './types.ts';

const PAGE_SIZE = 25;

function isStatus(value: string | null): value is PaymentStatus {
  return PAYMENT_STATUSES.some((status) => status === value);
}

/** A payment's status as a badge (its class gives it a color; the text says it). */
export function StatusBadge(props: { status: string }) {
  return <span class={`commerce-badge commerce-badge-${props.status}`}>{statusLabel(props.status)}</span>;
}

function PaymentRow(props: { payment: Payment }) {
  const { payment } = props;
  return (
    <tr>
      <td>
        <Link to={tenantPath(`payments/${encodeURIComponent(payment.id)}`)}>
          <code>{payment.id}</code>
        </Link>
      </td>
      <td>{formatMoney(payment.amount, payment.currency)}</td>
      <td>
        <StatusBadge status={payment.status} />
      </td>
      <td>{payment.customer?.id ?? '—'}</td>
      <td>{payment.description ?? '—'}</td>
      <td>
        <Time value={payment.createdAt} />
      </td>
    </tr>
  );
}

/** The filters of the list, kept in the query string (a filtered list's URL can be shared). */
function Filters(props: { status: PaymentStatus | undefined; customer: string }) {
  return (
    <form
      class="commerce-filters"
      onSubmit={(event) => {
        event.preventDefault();
        const form = new FormData(event.currentTarget);
        setQuery({ status: props.status, customer: String(form.get('customer') ?? '').trim() });
      }}
    >
      <SelectField
        label="Status"
        id="payments-status"
        value={props.status ?? ''}
        choices={[
          { value: '', label: 'Any status' },
          ...PAYMENT_STATUSES.map((status) => ({ value: status, label: statusLabel(status) })),
        ]}
        onChange={(status) => setQuery({ status, customer: props.customer })}
      />
      <Field label="Customer" id="payments-customer" hint="The customer's actor id, e.g. shop:42">
        <input id="payments-customer" name="customer" defaultValue={props.customer} />
      </Field>
      <button type="submit" class="secondary">
        Filter
      </button>
    </form>
  );
}

/** The tenant's payments, newest first, filtered by status and customer. */
export function PaymentsPage() {
  const params = query.value;
  const wanted = params.get('status');
  const status = isStatus(wanted) ? wanted : undefined;
  const customer = params.get('customer') ?? '';
  const cursor = params.get('cursor') ?? undefined;
  const payments = useLoad(async () => {
    const { data } = await api.GET('/v1/payments', {
      params: {
        query: {
          limit: PAGE_SIZE,
          ...(status === undefined ? {} : { status }),
          ...(customer === '' ? {} : { customer }),
          ...(cursor === undefined ? {} : { cursor }),
        },
      },
    });
    return data;
  }, [status, customer, cursor]);
  const filtered = status !== undefined || customer !== '';
  return (
    <Page title="Payments">
      <Filters status={status} customer={customer} />
      <Listing
        load={payments}
        what="payments"
        empty={
          <EmptyState title={filtered ? 'No payments match these filters.' : 'No payments yet.'}>
            <p>
              {filtered
                ? 'Choose "Any status" or clear the customer to see more.'
                : 'Your app creates payments with POST /v1/payments (see docs/payments.md); they appear here.'}
            </p>
          </EmptyState>
        }
      >
        {(page) => (
          <>
            <Table
              caption="Payments, newest first"
              head={['Payment', 'Amount', 'Status', 'Customer', 'Description', 'Created']}
            >
              {page.data.map((payment) => (
                <PaymentRow payment={payment} key={payment.id} />
              ))}
            </Table>
            <Pager class="commerce-pager" cursor={cursor} next={page.nextCursor} />
          </>
        )}
      </Listing>
    </Page>
  );
}
