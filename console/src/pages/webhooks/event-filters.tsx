import { useSignal } from '@preact/signals';
import { setQuery } from '../../lib/router.tsx';
import { Field } from '../../lib/ui.tsx';
import { isoOfLocal, localOfIso } from './types.ts';

/** The events explorer's filters as the query string holds them (times in ISO 8601). */
export interface EventFilters {
  type?: string | undefined;
  actor?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
}

export function eventFiltersOf(params: URLSearchParams): EventFilters {
  const get = (name: string) => params.get(name) ?? undefined;
  return { type: get('type'), actor: get('actor'), since: get('since'), until: get('until') };
}

/** Type (exact or `prefix.*`), who caused it, and time range; applied to the query string, so the view can be shared. */
export function EventFilterForm(props: { filters: EventFilters }) {
  const type = useSignal(props.filters.type ?? '');
  const actor = useSignal(props.filters.actor ?? '');
  const since = useSignal(localOfIso(props.filters.since));
  const until = useSignal(localOfIso(props.filters.until));
  const active = Object.values(props.filters).some((v) => v !== undefined);
  return (
    <form
      class="webhooks-filters"
      aria-label="Filter events"
      onSubmit={(event) => {
        event.preventDefault();
        setQuery({
          type: type.value.trim(),
          actor: actor.value.trim(),
          since: isoOfLocal(since.value),
          until: isoOfLocal(until.value),
        });
      }}
    >
      <Field label="Type" id="event-type" hint="Exact (room.created) or a prefix (room.*)">
        <input
          id="event-type"
          value={type.value}
          aria-describedby="event-type-hint"
          onInput={(event) => {
            type.value = event.currentTarget.value;
          }}
        />
      </Field>
      <Field label="Caused by" id="event-actor" hint="An API key (key_…), user (usr_…) or actor id">
        <input
          id="event-actor"
          value={actor.value}
          aria-describedby="event-actor-hint"
          onInput={(event) => {
            actor.value = event.currentTarget.value;
          }}
        />
      </Field>
      <Field label="From" id="event-since">
        <input
          id="event-since"
          type="datetime-local"
          value={since.value}
          onInput={(event) => {
            since.value = event.currentTarget.value;
          }}
        />
      </Field>
      <Field label="Until" id="event-until" hint="Leave empty to follow new events live">
        <input
          id="event-until"
          type="datetime-local"
          value={until.value}
          aria-describedby="event-until-hint"
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
