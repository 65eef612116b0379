import { api } from '../../lib/api.ts';
import { Listing, Pager } from '../../lib/list.tsx';
import { useInterval, useLoad } from '../../lib/load.ts';
import { Link, query, tenantPath } from '../../lib/router.tsx';
import { EmptyState, ErrorNotice, Loading, Page, Table, Time } from '../../lib/ui.tsx';
import type { PageProps } from '../page.ts';
import { DeliveryFilterForm, deliveryFiltersOf } from './delivery-filters.tsx';
import { EndpointSettings } from './endpoint-settings.tsx';
import { ReplayForm } from './replay-form.tsx';
import { type Delivery, seg, stateLabel } from './types.ts';

const PAGE_SIZE = 25;
/** The first page of the log refreshes itself this often, so new deliveries and retries show up. */
const REFRESH_MS = 1000;

/** The last attempt of a delivery in a few words: its status code or its error class. */
function lastOutcome(delivery: Delivery): string {
  if (delivery.attemptCount === 0) return 'not tried yet';
  if (delivery.lastStatusCode !== null) return `HTTP ${delivery.lastStatusCode}`;
  return delivery.lastErrorClass ?? '—';
}

function DeliveryRows(props: { deliveries: Delivery[] }) {
  return (
    <Table
      caption="Deliveries, newest first"
      head={['Event type', 'Status', 'Attempts', 'Last answer', 'Created', 'Delivery']}
    >
      {props.deliveries.map((delivery) => (
        <tr key={delivery.id}>
          <td>
            <code>{delivery.eventType}</code>
          </td>
          <td>
            <span class={`webhooks-state webhooks-state-${delivery.state}`}>
              {stateLabel(delivery.state)}
            </span>
          </td>
          <td>{delivery.attemptCount}</td>
          <td>{lastOutcome(delivery)}</td>
          <td>
            <Time value={delivery.createdAt} />
          </td>
          <td>
            <Link
              to={tenantPath(`webhooks/deliveries/${seg(delivery.id)}`)}
              aria-label={`Delivery ${delivery.id} of ${delivery.eventType}`}
            >
              <code>{delivery.id}</code>
            </Link>
          </td>
        </tr>
      ))}
    </Table>
  );
}

/** One endpoint: its settings, its delivery log with filters (in the query string), and replay. */
export function EndpointPage(props: PageProps) {
  const webhookId = props.params.webhookId ?? '';
  const params = query.value;
  const filters = deliveryFiltersOf(params);
  const cursor = params.get('cursor') ?? undefined;
  const key = params.toString();
  const endpoint = useLoad(async () => {
    const { data } = await api.GET('/v1/webhooks/{webhookId}', { params: { path: { webhookId } } });
    return data;
  }, [webhookId]);
  const deliveries = useLoad(async () => {
    const { data } = await api.GET('/v1/webhooks/{webhookId}/deliveries', {
      params: {
        path: { webhookId },
        query: {
          limit: PAGE_SIZE,
          ...(filters.state === undefined ? {} : { state: filters.state as Delivery['state'] }),
          ...(filters.eventType === undefined ? {} : { eventType: filters.eventType }),
          ...(filters.since === undefined ? {} : { since: filters.since }),
          ...(filters.until === undefined ? {} : { until: filters.until }),
          ...(cursor === undefined ? {} : { cursor }),
        },
      },
    });
    return data;
  }, [webhookId, key]);
  useInterval(
    () => {
      if (cursor === undefined && !document.hidden && !deliveries.loading.value) void deliveries.reload();
    },
    REFRESH_MS,
    [key],
  );
  const found = endpoint.data.value;
  const filtered = Object.values(filters).some((v) => v !== undefined);
  return (
    <Page title={found === undefined ? 'Webhook endpoint' : `Endpoint ${found.url}`}>
      <p>
        <Link to={tenantPath('webhooks')}>All endpoints</Link>
      </p>
      {endpoint.error.value === undefined ? null : <ErrorNotice error={endpoint.error.value} />}
      {found === undefined ? (
        endpoint.loading.value ? (
          <Loading what="the endpoint" />
        ) : null
      ) : (
        <EndpointSettings
          endpoint={found}
          onChanged={(changed) => {
            endpoint.data.value = changed;
          }}
        />
      )}
      <section aria-labelledby="deliveries-title">
        <h2 id="deliveries-title">Deliveries</h2>
        <DeliveryFilterForm filters={filters} key={key} />
        <Listing
          load={deliveries}
          what="deliveries"
          empty={
            <EmptyState title={filtered ? 'No delivery matches these filters.' : 'No deliveries yet.'}>
              <p>
                {filtered
                  ? 'Change or clear the filters to see other deliveries.'
                  : 'Deliveries appear here as events happen; send a test event above to try the endpoint.'}
              </p>
            </EmptyState>
          }
        >
          {(page) => (
            <>
              <DeliveryRows deliveries={page.data} />
              <Pager cursor={cursor} next={page.nextCursor} />
            </>
          )}
        </Listing>
      </section>
      <ReplayForm
        webhookId={webhookId}
        disabled={found?.enabled === false}
        onReplayed={() => void deliveries.reload()}
      />
    </Page>
  );
}
