import { useSignal } from '@preact/signals';
import { setQuery } from '../../lib/router.tsx';
import { Field } from '../../lib/ui.tsx';
import { DELIVERY_STATES, isoOfLocal, localOfIso, stateLabel } from './types.ts';

/** The delivery log's filters as the query string holds them (times in ISO 8601). */
export interface DeliveryFilters {
  state?: string | undefined;
  eventType?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
}

export function deliveryFiltersOf(params: URLSearchParams): DeliveryFilters {
  const get = (name: string) => params.get(name) ?? undefined;
  return { state: get('state'), eventType: get('eventType'), since: get('since'), until: get('until') };
}

/** Status, event type and time range of the delivery log; applied to the query string (a shareable URL). */
export function DeliveryFilterForm(props: { filters: DeliveryFilters }) {
  const state = useSignal(props.filters.state ?? '');
  const eventType = useSignal(props.filters.eventType ?? '');
  const since = useSignal(localOfIso(props.filters.since));
  const until = useSignal(localOfIso(props.filters.until));
  const active = Object.values(props.filters).some((v) => v !== undefined);
  return (
    <form
      class="webhooks-filters"
      aria-label="Filter deliveries"
      onSubmit={(event) => {
        event.preventDefault();
        setQuery({
          state: state.value,
          eventType: eventType.value.trim(),
          since: isoOfLocal(since.value),
          until: isoOfLocal(until.value),
        });
      }}
    >
      <Field label="Status" id="delivery-state">
        <select
          id="delivery-state"
          value={state.value}
          onChange={(event) => {
            state.value = event.currentTarget.value;
          }}
        >
          <option value="">Any</option>
          {DELIVERY_STATES.map((s) => (
            <option value={s} key={s}>
              {stateLabel(s)}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Event type" id="delivery-type" hint="Exact, e.g. room.created">
        <input
          id="delivery-type"
          value={eventType.value}
          aria-describedby="delivery-type-hint"
          onInput={(event) => {
            eventType.value = event.currentTarget.value;
          }}
        />
      </Field>
      <Field label="From" id="delivery-since">
        <input
          id="delivery-since"
          type="datetime-local"
          value={since.value}
          onInput={(event) => {
            since.value = event.currentTarget.value;
          }}
        />
      </Field>
      <Field label="Until" id="delivery-until">
        <input
          id="delivery-until"
          type="datetime-local"
          value={until.value}
          onInput={(event) => {
            until.value = event.currentTarget.value;
          }}
        />
      </Field>
      <div class="webhooks-filter-buttons">
        <button type="submit">Apply filters</button>{' '}
        {active ? (
          <button type="button" class="secondary" onClick={() => setQuery({})}>
            Clear filters
          </button>
        ) : null}
      </div>
    </form>
  );
}
