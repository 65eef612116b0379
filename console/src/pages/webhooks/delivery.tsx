import { useSignal } from '@preact/signals';
import { api } from '../../lib/api.ts';
import { useInterval, useLoad } from '../../lib/load.ts';
import { Link, tenantPath } from '../../lib/router.tsx';
import { EmptyState, ErrorNotice, Loading, Page, Table, Time } from '../../lib/ui.tsx';
import type { PageProps } from '../page.ts';
import { type Attempt, type DeliveryDetail, seg, stateLabel } from './types.ts';

/** While a delivery is pending its next attempt may land any moment: the page looks again this often. */
const PENDING_REFRESH_MS = 1000;

/** The body as sent, indented for reading when it is JSON (it always is; the exact bytes are kept). */
function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function AttemptRows(props: { attempts: Attempt[] }) {
  if (props.attempts.length === 0) {
    return (
      <EmptyState title="No attempt yet.">
        <p>
          The first attempt is made as soon as the worker reaches this delivery; this page updates itself.
        </p>
      </EmptyState>
    );
  }
  return (
    <Table
      caption="Attempts, oldest first"
      head={[
        'Attempt',
        'Cycle',
        'Started',
        'Duration',
        'Response status',
        'Error',
        'Response body (excerpt)',
      ]}
    >
      {props.attempts.map((attempt) => (
        <tr key={attempt.attempt}>
          <td>{attempt.attempt}</td>
          <td>{attempt.cycle}</td>
          <td>
            <Time value={attempt.startedAt} />
          </td>
          <td>{attempt.durationMs === null ? '—' : `${attempt.durationMs} ms`}</td>
          <td>{attempt.statusCode ?? '—'}</td>
          <td>
            {attempt.errorClass === null ? (
              'none'
            ) : (
              <>
                <code>{attempt.errorClass}</code> {attempt.errorMessage ?? ''}
              </>
            )}
          </td>
          <td>
            {attempt.responseBodyExcerpt === null || attempt.responseBodyExcerpt === '' ? (
              '—'
            ) : (
              <pre class="webhooks-excerpt">{attempt.responseBodyExcerpt}</pre>
            )}
          </td>
        </tr>
      ))}
    </Table>
  );
}

function RequestView(props: { delivery: DeliveryDetail }) {
  const { request, body } = props.delivery;
  return (
    <section aria-labelledby="request-title">
      <h2 id="request-title">Request</h2>
      <p>
        <code>POST {request.url}</code>
      </p>
      <Table caption="Request headers" head={['Header', 'Value']}>
        {Object.entries(request.headers).map(([name, value]) => (
          <tr key={name}>
            <td>
              <code>{name}</code>
            </td>
            <td>
              <code>{value}</code>
            </td>
          </tr>
        ))}
      </Table>
      <h3>Body</h3>
      <pre class="webhooks-body">{pretty(body)}</pre>
    </section>
  );
}

/** One delivery: what was sent, every attempt with what came back, and resend. */
export function DeliveryPage(props: PageProps) {
  const deliveryId = props.params.deliveryId ?? '';
  const resendError = useSignal<unknown>(undefined);
  const delivery = useLoad(async () => {
    const { data } = await api.GET('/v1/webhook-deliveries/{deliveryId}', {
      params: { path: { deliveryId } },
    });
    return data;
  }, [deliveryId]);
  useInterval(() => {
    if (delivery.data.value?.state === 'pending' && !document.hidden && !delivery.loading.value)
      void delivery.reload();
  }, PENDING_REFRESH_MS);
  const found = delivery.data.value;
  return (
    <Page title={`Delivery ${deliveryId}`}>
      {delivery.error.value === undefined ? null : <ErrorNotice error={delivery.error.value} />}
      {found === undefined ? (
        delivery.loading.value ? (
          <Loading what="the delivery" />
        ) : null
      ) : (
        <>
          <p>
            <Link to={tenantPath(`webhooks/${seg(found.endpointId)}`)}>
              Back to the endpoint's deliveries
            </Link>
          </p>
          <dl class="webhooks-summary">
            <dt>Event</dt>
            <dd>
              <code>{found.eventType}</code> <code>{found.eventId}</code>
            </dd>
            <dt>Status</dt>
            <dd>
              <span class={`webhooks-state webhooks-state-${found.state}`}>{stateLabel(found.state)}</span>
              {found.state === 'pending' && found.nextAttemptAt !== null ? (
                <>
                  {' '}
                  (next attempt <Time value={found.nextAttemptAt} />)
                </>
              ) : null}
            </dd>
            <dt>Created</dt>
            <dd>
              <Time value={found.createdAt} />
            </dd>
            <dt>Attempts</dt>
            <dd>{found.attemptCount}</dd>
          </dl>
          {resendError.value === undefined ? null : <ErrorNotice error={resendError.value} />}
          <button
            type="button"
            disabled={found.state === 'pending'}
            onClick={async () => {
              resendError.value = undefined;
              try {
                await api.POST('/v1/webhook-deliveries/{deliveryId}/redeliver', {
                  params: { path: { deliveryId } },
                });
                await delivery.reload();
              } catch (caught) {
                resendError.value = caught;
              }
            }}
          >
            Resend
          </button>
          {found.state === 'pending' ? (
            <span class="hint"> A pending delivery is still being tried; resend once it ends.</span>
          ) : null}
          <section aria-labelledby="attempts-title">
            <h2 id="attempts-title">Attempts</h2>
            <AttemptRows attempts={found.attempts} />
          </section>
          <RequestView delivery={found} />
        </>
      )}
    </Page>
  );
}
