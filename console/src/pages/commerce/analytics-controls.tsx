import { query, setQuery } from '../../lib/router.tsx';
import { Field } from '../../lib/ui.tsx';

export const PRESETS = [
  ['today', 'Today'],
  ['yesterday', 'Yesterday'],
  ['last_24h', 'Last 24 hours'],
  ['last_7d', 'Last 7 days'],
  ['last_30d', 'Last 30 days'],
  ['last_90d', 'Last 90 days'],
  ['month_to_date', 'Month to date'],
  ['last_12m', 'Last 12 months'],
] as const;
export type Preset = (typeof PRESETS)[number][0];
const PRESET_VALUES: readonly Preset[] = PRESETS.map(([value]) => value);
export const INTERVALS = ['hour', 'day', 'week', 'month'] as const;
export type Interval = (typeof INTERVALS)[number];

/** What the page shows, from the query string (so a chart's URL can be shared). */
export interface AnalyticsView {
  /** Event names, empty: every event. */
  events: string[];
  preset: Preset;
  interval: Interval;
  timezone: string;
  breakdown: string;
}

/** The browser's own time zone: the default of every query. */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

function timeZones(): string[] {
  const zones = Intl.supportedValuesOf('timeZone');
  return zones.includes('UTC') ? zones : ['UTC', ...zones];
}

function oneOf<T extends string>(values: readonly T[], value: string | null, fallback: T): T {
  return values.find((v) => v === value) ?? fallback;
}

/**
 * The page's view from its query string; the time zone is the one picked (`tz`), else the tenant's (the
 * analytics module's `timezone` setting), else the browser's.
 */
export function readView(tenantZone?: string): AnalyticsView {
  const params = query.value;
  return {
    events: (params.get('event') ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== ''),
    preset: oneOf(PRESET_VALUES, params.get('range'), 'last_7d'),
    interval: oneOf(INTERVALS, params.get('interval'), 'day'),
    timezone: params.get('tz') ?? tenantZone ?? browserTimeZone(),
    breakdown: params.get('breakdown') ?? '',
  };
}

function write(view: AnalyticsView): void {
  setQuery({
    event: view.events.join(','),
    range: view.preset,
    interval: view.interval,
    tz: view.timezone === browserTimeZone() ? undefined : view.timezone,
    breakdown: view.breakdown,
  });
}

/**
 * The query's controls: a choice in a list applies at once; the text fields (events, breakdown) when the
 * form is sent.
 */
export function Controls(props: { view: AnalyticsView }) {
  const { view } = props;
  return (
    <form
      class="commerce-filters"
      onSubmit={(event) => {
        event.preventDefault();
        const form = new FormData(event.currentTarget);
        const text = (name: string) => String(form.get(name) ?? '').trim();
        write({
          ...view,
          events: text('event')
            .split(',')
            .map((name) => name.trim())
            .filter((name) => name !== ''),
          breakdown: text('breakdown'),
        });
      }}
    >
      <Field label="Events" id="analytics-event" hint="Names separated by commas; empty: every event">
        <input id="analytics-event" name="event" defaultValue={view.events.join(', ')} />
      </Field>
      <Field label="Break down by property" id="analytics-breakdown" hint="e.g. plan or roomId; empty: none">
        <input id="analytics-breakdown" name="breakdown" defaultValue={view.breakdown} />
      </Field>
      <button type="submit">Show</button>
      <Field label="Range" id="analytics-range">
        <select
          id="analytics-range"
          value={view.preset}
          onChange={(event) =>
            write({ ...view, preset: oneOf(PRESET_VALUES, event.currentTarget.value, view.preset) })
          }
        >
          {PRESETS.map(([value, label]) => (
            <option value={value} key={value}>
              {label}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Interval" id="analytics-interval">
        <select
          id="analytics-interval"
          value={view.interval}
          onChange={(event) =>
            write({ ...view, interval: oneOf(INTERVALS, event.currentTarget.value, view.interval) })
          }
        >
          {INTERVALS.map((interval) => (
            <option value={interval} key={interval}>
              {interval}
            </option>
          ))}
        </select>
      </Field>
      <Field
        label="Time zone"
        id="analytics-tz"
        hint={`Buckets start at local midnight; yours is ${browserTimeZone()}`}
      >
        <select
          id="analytics-tz"
          value={view.timezone}
          onChange={(event) => write({ ...view, timezone: event.currentTarget.value })}
        >
          {timeZones().map((zone) => (
            <option value={zone} key={zone}>
              {zone}
            </option>
          ))}
        </select>
      </Field>
    </form>
  );
}
