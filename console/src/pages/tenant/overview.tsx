import { useSignal } from '@preact/signals';
import { api } from '../../lib/api.ts';
import { useLoad } from '../../lib/load.ts';
import { Link, tenantPath } from '../../lib/router.tsx';
import { EmptyState, ErrorNotice, Loading, Page, Table, Time } from '../../lib/ui.tsx';
import { tenantParams } from './shared.ts';

const RECENT_EVENTS = 10;
const COUNTED_TYPES = 12;

/** Midnight of today in the browser's time zone: "today" as the person reading the page means it. */
function startOfToday(): Date {
  const now = new Date();
  return new Date(now.getFullYear(), now.getMonth(), now.getDate());
}

function EnabledModules(props: { round: number }) {
  const modules = useLoad(async () => {
    const { data } = await api.GET('/api/console/tenants/{tenantId}/modules', {
      params: { ...tenantParams(), query: { limit: 100 } },
    });
    return data.data;
  }, [props.round]);
  const list = modules.data.value;
  return (
    <section aria-labelledby="overview-modules" class="tenant-card">
      <h2 id="overview-modules">Enabled modules</h2>
      {modules.error.value === undefined ? null : <ErrorNotice error={modules.error.value} />}
      {list === undefined ? (
        modules.loading.value ? (
          <Loading what="modules" />
        ) : null
      ) : list.some((m) => m.enabled) ? (
        <ul class="tenant-chips">
          {list
            .filter((m) => m.enabled)
            .map((m) => (
              <li key={m.module}>{m.title}</li>
            ))}
        </ul>
      ) : (
        <EmptyState title="No module is enabled.">
          <p>Turn on the modules this tenant uses on the Modules page.</p>
        </EmptyState>
      )}
      <p>
        <Link to={tenantPath('modules')}>Manage modules and their settings</Link>
      </p>
    </section>
  );
}

function TodayCounts(props: { round: number }) {
  const since = startOfToday().toISOString();
  const counts = useLoad(async () => {
    const { data } = await api.GET('/api/console/tenants/{tenantId}/event-counts', {
      params: { ...tenantParams(), query: { since } },
    });
    return data;
  }, [props.round]);
  const today = counts.data.value;
  return (
    <section aria-labelledby="overview-today" class="tenant-card">
      <h2 id="overview-today">Today</h2>
      {counts.error.value === undefined ? null : <ErrorNotice error={counts.error.value} />}
      {today === undefined ? (
        counts.loading.value ? (
          <Loading what="today's counts" />
        ) : null
      ) : today.total === 0 ? (
        <EmptyState title="No events yet today.">
          <p>
            Events appear as your app uses the API: create a room, send a message, publish an{' '}
            <code>app.*</code> event. Create an API key on the{' '}
            <Link to={tenantPath('api-keys')}>API keys</Link> page to start.
          </p>
        </EmptyState>
      ) : (
        <>
          <p class="tenant-total">
            <strong>{today.total}</strong> {today.total === 1 ? 'event' : 'events'} since{' '}
            <Time value={today.since} />
          </p>
          <Table caption="Events today by type" head={['Event type', 'Count']}>
            {today.types.slice(0, COUNTED_TYPES).map((row) => (
              <tr key={row.type}>
                <td>
                  <Link
                    to={tenantPath(`events?${new URLSearchParams({ type: row.type, since: today.since })}`)}
                  >
                    {row.type}
                  </Link>
                </td>
                <td>{row.count}</td>
              </tr>
            ))}
          </Table>
          {today.types.length > COUNTED_TYPES || today.otherTypes > 0 ? (
            <p class="hint">Less frequent types are left out; the events explorer shows them all.</p>
          ) : null}
        </>
      )}
    </section>
  );
}

function RecentEvents(props: { round: number }) {
  const events = useLoad(async () => {
    const { data } = await api.GET('/api/console/tenants/{tenantId}/events', {
      params: { ...tenantParams(), query: { limit: RECENT_EVENTS } },
    });
    return data.data;
  }, [props.round]);
  const list = events.data.value;
  return (
    <section aria-labelledby="overview-recent" class="tenant-card tenant-wide">
      <h2 id="overview-recent">Recent events</h2>
      {events.error.value === undefined ? null : <ErrorNotice error={events.error.value} />}
      {list === undefined ? (
        events.loading.value ? (
          <Loading what="recent events" />
        ) : null
      ) : list.length === 0 ? (
        <EmptyState title="No events yet.">
          <p>The tenant's activity (rooms, chat, auctions, payments, your app.* events) is listed here.</p>
        </EmptyState>
      ) : (
        <Table caption="The newest events" hideCaption head={['Type', 'Id', 'When']}>
          {list.map((event) => (
            <tr key={event.id}>
              <td>{event.type}</td>
              <td>
                <code>{event.id}</code>
              </td>
              <td>
                <Time value={event.created_at} />
              </td>
            </tr>
          ))}
        </Table>
      )}
      <p>
        <Link to={tenantPath('events')}>Open the events explorer</Link>
      </p>
    </section>
  );
}

/** The tenant's landing page: its name and the caller's role, enabled modules, today's counts, recent events. */
export function OverviewPage() {
  const tenant = useLoad(async () => {
    const { data } = await api.GET('/api/console/tenants/{tenantId}', { params: tenantParams() });
    return data;
  }, []);
  const info = tenant.data.value;
  /** Bumped by Refresh: each section loads again. */
  const round = useSignal(0);
  const refresh = (
    <button
      type="button"
      class="secondary"
      onClick={() => {
        round.value += 1;
      }}
    >
      Refresh
    </button>
  );
  return (
    <Page title="Overview" actions={refresh}>
      {tenant.error.value === undefined ? null : <ErrorNotice error={tenant.error.value} />}
      {info === undefined ? null : (
        <p class="tenant-summary">
          <strong>{info.name}</strong> (<code>{info.id}</code>) · {info.workspaceType} workspace · your role:{' '}
          <strong>{info.role}</strong>
        </p>
      )}
      <div class="tenant-grid">
        <EnabledModules round={round.value} />
        <TodayCounts round={round.value} />
        <RecentEvents round={round.value} />
      </div>
    </Page>
  );
}
