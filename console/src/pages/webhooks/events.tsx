import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api } from '../../lib/api.ts';
import { Pager } from '../../lib/list.tsx';
import { useInterval, useLoad } from '../../lib/load.ts';
import { Link, query, tenantPath } from '../../lib/router.tsx';
import { EmptyState, ErrorNotice, Loading, Page, Table, Time } from '../../lib/ui.tsx';
import { EventFilterForm, type EventFilters, eventFiltersOf } from './event-filters.tsx';
import type { TenantEvent } from './types.ts';

const PAGE_SIZE = 50;
/** The live tail asks for newer events this often: a new event shows within a second. */
const TAIL_MS = 500;
/** The tail keeps at most this many events above the page it started from. */
const TAIL_MAX = 500;

function filterQuery(filters: EventFilters) {
  return {
    ...(filters.type === undefined ? {} : { type: filters.type }),
    ...(filters.actor === undefined ? {} : { actor: filters.actor }),
    ...(filters.since === undefined ? {} : { since: filters.since }),
    ...(filters.until === undefined ? {} : { until: filters.until }),
  };
}

/** Who caused an event: its origin, and the actor's id (a link that lists that actor's events) if any. */
function CausedBy(props: { event: TenantEvent }) {
  const actor = props.event.trace.actor as { id?: unknown } | undefined;
  const id = typeof actor?.id === 'string' ? actor.id : undefined;
  if (id === undefined) return <>{props.event.trace.origin}</>;
  return (
    <>
      {props.event.trace.origin} ·{' '}
      <Link
        to={`${tenantPath('events')}?actor=${encodeURIComponent(id)}`}
        title="Events caused by this actor"
      >
        {id}
      </Link>
    </>
  );
}

function EventRows(props: { events: TenantEvent[]; live: number }) {
  return (
    <Table caption="Events, newest first" head={['Type', 'Time', 'Caused by', 'Event']}>
      {props.events.map((event, i) => (
        <tr key={event.id} class={i < props.live ? 'webhooks-new' : undefined}>
          <td>
            <code>{event.type}</code>
          </td>
          <td>
            <Time value={event.created_at} />
          </td>
          <td>
            <CausedBy event={event} />
          </td>
          <td>
            <details>
              <summary>
                <code>{event.id}</code>
              </summary>
              <pre class="webhooks-body">
                {JSON.stringify({ data: event.data, trace: event.trace }, null, 2)}
              </pre>
            </details>
          </td>
        </tr>
      ))}
    </Table>
  );
}

/** The tenant's events with filters, and a live tail: new events appear at the top as they happen. */
export function EventsPage() {
  const params = query.value;
  const filters = eventFiltersOf(params);
  const cursor = params.get('cursor') ?? undefined;
  const key = params.toString();
  const paused = useSignal(false);
  const fresh = useSignal<TenantEvent[]>([]);
  const tailError = useSignal<unknown>(undefined);
  const events = useLoad(async () => {
    const { data } = await api.GET('/v1/events', {
      params: {
        query: { limit: PAGE_SIZE, ...filterQuery(filters), ...(cursor === undefined ? {} : { cursor }) },
      },
    });
    return data;
  }, [key]);
  useEffect(() => {
    fresh.value = [];
  }, [key]);
  const page = events.data.value;
  const canTail = cursor === undefined && filters.until === undefined;
  const tailing = canTail && !paused.value && page !== undefined;
  const polling = useSignal(false);
  useInterval(
    async () => {
      const loaded = events.data.value;
      if (!tailing || loaded === undefined || polling.value || document.hidden) return;
      const newest = fresh.value[0]?.id ?? loaded.data[0]?.id;
      polling.value = true;
      try {
        const { data } = await api.GET('/v1/events', {
          params: {
            query: {
              limit: 100,
              order: 'asc',
              ...filterQuery(filters),
              ...(newest === undefined ? {} : { after: newest }),
            },
          },
        });
        tailError.value = undefined;
        if (data.data.length > 0) fresh.value = [...data.data.reverse(), ...fresh.value].slice(0, TAIL_MAX);
      } catch (caught) {
        tailError.value = caught;
      } finally {
        polling.value = false;
      }
    },
    TAIL_MS,
    [key, tailing],
  );
  const shown = page === undefined ? [] : [...fresh.value, ...page.data];
  const filtered = Object.values(filters).some((v) => v !== undefined);
  return (
    <Page title="Events">
      <EventFilterForm filters={filters} key={key} />
      <p class="webhooks-live" role="status">
        {!canTail
          ? 'Live tail off: it follows the newest events, so clear "Until" and go to the first page.'
          : paused.value
            ? 'Live tail paused.'
            : 'Live: new events appear at the top as they happen.'}{' '}
        {canTail ? (
          <button type="button" class="secondary" onClick={() => (paused.value = !paused.value)}>
            {paused.value ? 'Resume live tail' : 'Pause live tail'}
          </button>
        ) : null}
      </p>
      {tailError.value === undefined ? null : <ErrorNotice error={tailError.value} />}
      {events.error.value === undefined ? null : <ErrorNotice error={events.error.value} />}
      {page === undefined ? (
        events.loading.value ? (
          <Loading what="events" />
        ) : null
      ) : shown.length === 0 ? (
        <EmptyState title={filtered ? 'No event matches these filters.' : 'No events yet.'}>
          <p>
            {filtered
              ? 'Change or clear the filters to see other events.'
              : 'Events are written as things happen in the tenant (a room created, a payment captured). This list updates itself.'}
          </p>
        </EmptyState>
      ) : (
        <>
          <EventRows events={shown} live={fresh.value.length} />
          <Pager
            cursor={cursor}
            next={page.nextCursor}
            labels={{ first: 'Newest events', next: 'Older events' }}
          />
        </>
      )}
    </Page>
  );
}
