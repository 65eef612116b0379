import { useSignal } from '@preact/signals';
import { DateRange, SelectField, TextField } from '../../lib/fields.tsx';
import { setQuery } from '../../lib/router.tsx';
import { DELIVERY_STATES, isoOfLocal, localOfIso, stateLabel } from './types.ts';

/** The delivery log's filters as the query string holds them (times in ISO 8601). */
export interface DeliveryFilters {
  state?: string | undefined;
  eventType?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
}

export function deliveryFiltersOf(params: URLSearchParams): DeliveryFilters {
  return queryValues(params, ['state', 'eventType', 'since', 'until']);
}

/** The named values of the query string (undefined when absent). */
export function queryValues<K extends string>(
  params: URLSearchParams,
  names: readonly K[],
): Record<K, string | undefined> {
  return Object.fromEntries(names.map((name) => [name, params.get(name) ?? undefined])) as Record<
    K,
    string | undefined
  >;
}

/** A filter form's buttons: apply what is typed, and clear every filter when some apply. */
export function FilterButtons(props: { active: boolean }) {
  return (
    <div class="webhooks-filter-buttons">
      <button type="submit">Apply filters</button>{' '}
      {props.active ? (
        <button type="button" class="secondary" onClick={() => setQuery({})}>
          Clear filters
        </button>
      ) : null}
    </div>
  );
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
      <SelectField
        label="Status"
        id="delivery-state"
        value={state.value}
        choices={[
          { value: '', label: 'Any' },
          ...DELIVERY_STATES.map((s) => ({ value: s, label: stateLabel(s) })),
        ]}
        onChange={(value) => {
          state.value = value;
        }}
      />
      <TextField label="Event type" id="delivery-type" hint="Exact, e.g. room.created" value={eventType} />
      <DateRange id="delivery" since={since} until={until} />
      <FilterButtons active={active} />
    </form>
  );
}
