import { api } from '../../lib/api.ts';
import { Pager } from '../../lib/list.tsx';
import { useLoad } from '../../lib/load.ts';
import { Link, query, tenantPath } from '../../lib/router.tsx';
import { EmptyState, ErrorNotice, Loading, Page, Table, Time } from '../../lib/ui.tsx';
import { CreateEndpointForm } from './endpoint-create.tsx';
import { type Endpoint, eventTypesLabel, seg } from './types.ts';

const PAGE_SIZE = 50;

/** Enabled, disabled, or paused by its circuit breaker (a receiver that keeps timing out). */
export function endpointStatus(endpoint: Endpoint): string {
  if (!endpoint.enabled) return 'Disabled';
  if (endpoint.circuit.openUntil !== null) return 'Paused (not answering)';
  return 'Enabled';
}

/** The tenant's webhook endpoints, oldest first, and the form to add one. */
export function WebhooksPage() {
  const cursor = query.value.get('cursor') ?? undefined;
  const endpoints = useLoad(async () => {
    const { data } = await api.GET('/v1/webhooks', {
      params: { query: { limit: PAGE_SIZE, ...(cursor === undefined ? {} : { cursor }) } },
    });
    return data;
  }, [cursor]);
  const page = endpoints.data.value;
  return (
    <Page title="Webhook endpoints">
      <p class="hint">
        Each endpoint receives the tenant's events as signed HTTP POSTs, retried until it answers 2xx. Open
        one to see its deliveries, resend them, or change it.
      </p>
      {endpoints.error.value === undefined ? null : <ErrorNotice error={endpoints.error.value} />}
      {page === undefined ? (
        endpoints.loading.value ? (
          <Loading what="endpoints" />
        ) : null
      ) : page.data.length === 0 && cursor === undefined ? (
        <EmptyState title="No webhook endpoints yet.">
          <p>Add one below with the URL of your receiver; events start arriving there at once.</p>
        </EmptyState>
      ) : (
        <>
          <Table
            caption="Webhook endpoints, oldest first"
            head={['URL', 'Description', 'Event types', 'Status', 'Created']}
          >
            {page.data.map((endpoint) => (
              <tr key={endpoint.id}>
                <td>
                  <Link to={tenantPath(`webhooks/${seg(endpoint.id)}`)}>{endpoint.url}</Link>
                  <div>
                    <code class="webhooks-id">{endpoint.id}</code>
                  </div>
                </td>
                <td>{endpoint.description === '' ? '—' : endpoint.description}</td>
                <td>{eventTypesLabel(endpoint.eventTypes)}</td>
                <td>{endpointStatus(endpoint)}</td>
                <td>
                  <Time value={endpoint.createdAt} />
                </td>
              </tr>
            ))}
          </Table>
          <Pager cursor={cursor} next={page.nextCursor} />
        </>
      )}
      <CreateEndpointForm onCreated={() => void endpoints.reload()} />
    </Page>
  );
}
