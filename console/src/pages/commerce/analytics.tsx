import type { components } from '@svc/client';
import { useMemo } from 'preact/hooks';
import { api } from '../../lib/api.ts';
import { useLoad } from '../../lib/load.ts';
import { tenantRoute } from '../../lib/router.tsx';
import { EmptyState, ErrorNotice, Loading, Page, Table } from '../../lib/ui.tsx';
import { CountsChart } from './analytics-chart.tsx';
import { type AnalyticsView, Controls, readView } from './analytics-controls.tsx';
import { Funnel } from './analytics-funnel.tsx';

type QueryResult = components['schemas']['AnalyticsQueryResult'];
const METRICS = ['events', 'uniques'];

function eventSelector(view: AnalyticsView) {
  if (view.events.length === 0) return {};
  return { event: view.events.length === 1 ? (view.events[0] as string) : view.events };
}

/** A bucket's local start as the time zone reads it: `2026-11-25 00:00` (hours only for hourly buckets). */
function localLabel(startLocal: string, interval: string): string {
  const [date = '', time = ''] = startLocal.split('T');
  return interval === 'hour' ? `${date} ${time.slice(0, 5)}` : date;
}

/** An instant as the chosen time zone reads it (the range's bounds). */
function inZone(iso: string, timezone: string): string {
  return new Date(iso).toLocaleString(undefined, {
    timeZone: timezone,
    dateStyle: 'medium',
    timeStyle: 'short',
  });
}

function Series(props: { view: AnalyticsView; result: QueryResult }) {
  const { view, result } = props;
  const buckets = result.buckets ?? [];
  const what = view.events.length === 0 ? 'every event' : view.events.join(', ');
  // The chart is drawn again only when the answer changes, not on every render of the page.
  const times = useMemo(() => buckets.map((b) => Date.parse(b.start) / 1000), [result]);
  const series = useMemo(
    () => [
      { label: 'Events', stroke: '#1f5fbf', values: buckets.map((b) => b.values.events ?? null) },
      { label: 'People', stroke: '#1e7a3a', values: buckets.map((b) => b.values.uniques ?? null) },
    ],
    [result],
  );
  return (
    <>
      <p>
        <strong>{result.totals.events ?? 0}</strong> events by <strong>{result.totals.uniques ?? 0}</strong>{' '}
        people ({what}), {inZone(result.dateRange.from, result.timezone)} to{' '}
        {inZone(result.dateRange.to, result.timezone)}, in {result.timezone}.
      </p>
      <CountsChart
        label={`Events and people per ${view.interval} in ${view.timezone}: ${what}`}
        timezone={view.timezone}
        times={times}
        series={series}
      />
      <details>
        <summary>The numbers per {view.interval}</summary>
        <Table
          caption={`Per ${view.interval}, in ${view.timezone}`}
          head={['Starts (local)', 'Events', 'People']}
        >
          {buckets.map((bucket) => (
            <tr key={bucket.start}>
              <td>{localLabel(bucket.startLocal, view.interval)}</td>
              <td>{bucket.values.events ?? 0}</td>
              <td>{bucket.values.uniques ?? 0}</td>
            </tr>
          ))}
        </Table>
      </details>
    </>
  );
}

function Breakdown(props: { view: AnalyticsView }) {
  const { view } = props;
  const result = useLoad(async () => {
    const { data } = await api.POST('/v1/analytics/query', {
      body: {
        metrics: METRICS,
        ...eventSelector(view),
        dateRange: { preset: view.preset },
        timezone: view.timezone,
        breakdown: view.breakdown,
        breakdownLimit: 10,
      },
    });
    return data;
  }, [view.events.join(','), view.preset, view.timezone, view.breakdown]);
  const rows = result.data.value?.breakdown;
  return (
    <section class="commerce-panel" aria-labelledby="analytics-breakdown-title">
      <h2 id="analytics-breakdown-title">By {view.breakdown}</h2>
      {result.error.value === undefined ? null : <ErrorNotice error={result.error.value} />}
      {rows === undefined ? (
        result.loading.value ? (
          <Loading what="the breakdown" />
        ) : null
      ) : rows.length === 0 ? (
        <EmptyState title="No events in this range." />
      ) : (
        <Table
          caption={`Events by ${view.breakdown}, most first`}
          hideCaption
          head={[view.breakdown, 'Events', 'People']}
        >
          {rows.map((row) => (
            <tr key={`${row.other}-${row.value}`}>
              <td>{row.other ? 'Every other value' : (row.value ?? '(not set)')}</td>
              <td>{row.values.events ?? 0}</td>
              <td>{row.values.uniques ?? 0}</td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}

/** Analytics: counts over time in a time zone, a breakdown by a property, and a funnel. */
export function AnalyticsPage() {
  const tenantZone = useLoad(async () => {
    const { data } = await api.GET('/api/console/tenants/{tenantId}/modules', {
      params: { path: { tenantId: tenantRoute.value?.tenantId ?? '' }, query: { limit: 100 } },
    });
    const zone = data.data.find((setting) => setting.module === 'analytics')?.config.timezone;
    return typeof zone === 'string' ? zone : null;
  }, []);
  if (tenantZone.data.value === undefined && tenantZone.error.value === undefined) {
    return (
      <Page title="Analytics">
        <Loading what="the tenant's time zone" />
      </Page>
    );
  }
  return <AnalyticsBody tenantZone={tenantZone.data.value ?? undefined} />;
}

function AnalyticsBody(props: { tenantZone: string | undefined }) {
  const view = readView(props.tenantZone);
  const series = useLoad(async () => {
    const { data } = await api.POST('/v1/analytics/query', {
      body: {
        metrics: METRICS,
        ...eventSelector(view),
        dateRange: { preset: view.preset },
        interval: view.interval,
        timezone: view.timezone,
        breakdownLimit: 10,
      },
    });
    return data;
  }, [view.events.join(','), view.preset, view.interval, view.timezone]);
  const result = series.data.value;
  return (
    <Page title="Analytics">
      <Controls view={view} />
      <section class="commerce-panel" aria-labelledby="analytics-series-title">
        <h2 id="analytics-series-title">Over time</h2>
        {series.error.value === undefined ? null : <ErrorNotice error={series.error.value} />}
        {result === undefined ? (
          series.loading.value ? (
            <Loading what="counts" />
          ) : null
        ) : result.totals.events === 0 ? (
          <EmptyState title="No events in this range.">
            <p>
              Send events with POST /v1/analytics/events (see docs/analytics.md), choose a longer range, or
              clear the event names.
            </p>
          </EmptyState>
        ) : (
          <Series view={view} result={result} />
        )}
      </section>
      {view.breakdown === '' ? null : <Breakdown view={view} />}
      <Funnel view={view} />
    </Page>
  );
}
