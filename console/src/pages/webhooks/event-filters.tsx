import { useSignal } from '@preact/signals';
import { DateRange, TextField } from '../../lib/fields.tsx';
import { setQuery } from '../../lib/router.tsx';
import { FilterButtons, queryValues } from './delivery-filters.tsx';
import { isoOfLocal, localOfIso } from './types.ts';

/** The events explorer's filters as the query string holds them (times in ISO 8601). */
export interface EventFilters {
  type?: string | undefined;
  actor?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
}

export function eventFiltersOf(params: URLSearchParams): EventFilters {
  return queryValues(params, ['type', 'actor', 'since', 'until']);
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
      <TextField label="Type" id="event-type" hint="Exact (room.created) or a prefix (room.*)" value={type} />
      <TextField
        label="Caused by"
        id="event-actor"
        hint="An API key (key_…), user (usr_…) or actor id"
        value={actor}
      />
      <DateRange id="event" since={since} until={until} untilHint="Leave empty to follow new events live" />
      <FilterButtons active={active} />
    </form>
  );
}
