import { useSignal } from '@preact/signals';
import { api } from '../../lib/api.ts';
import { TextField } from '../../lib/fields.tsx';
import { Listing, Pager } from '../../lib/list.tsx';
import { useLoad } from '../../lib/load.ts';
import { Link, query, setQuery, tenantPath } from '../../lib/router.tsx';
import { EmptyState, Page, Table, Time } from '../../lib/ui.tsx';
import { filtersOf, formatPairs, parsePairs } from './metadata.ts';
import { CreateRoomForm } from './room-create.tsx';

const PAGE_SIZE = 25;

/** The filter form: `key=value` pairs that every listed room's metadata must have. */
function RoomFilters(props: { filters: [string, string][] }) {
  const text = useSignal(props.filters.map(([k, v]) => `${k}=${v}`).join(', '));
  const problem = useSignal<string | undefined>(undefined);
  return (
    <form
      class="live-filters"
      aria-label="Filter rooms"
      onSubmit={(event) => {
        event.preventDefault();
        const parsed = parsePairs(text.value);
        if ('error' in parsed) {
          problem.value = parsed.error;
          return;
        }
        problem.value = undefined;
        setQuery(Object.fromEntries(parsed.pairs.map(([k, v]) => [`metadata.${k}`, v])));
      }}
    >
      <TextField
        label="Metadata filters"
        id="room-filters"
        hint="key=value pairs separated by commas; a room must match all of them (values compare as text)"
        error={problem.value}
        value={text}
        placeholder="tier=2, brand=acme"
      />
      <button type="submit">Filter</button>{' '}
      {props.filters.length === 0 ? null : (
        <button type="button" class="secondary" onClick={() => setQuery({})}>
          Clear filters
        </button>
      )}
    </form>
  );
}

/** Rooms of the tenant, newest first, filtered by metadata (in the query string), and a form to create one. */
export function RoomsPage() {
  const params = query.value;
  const filters = filtersOf(params);
  const cursor = params.get('cursor') ?? undefined;
  const key = params.toString();
  const rooms = useLoad(async () => {
    const { data } = await api.GET('/v1/rooms', {
      params: {
        query: {
          limit: PAGE_SIZE,
          ...(cursor === undefined ? {} : { cursor }),
          ...(filters.length === 0
            ? {}
            : { filters: Object.fromEntries(filters.map(([k, v]) => [`metadata.${k}`, v])) }),
        },
      },
      // metadata.<key>=<value> go in the query as they are (an exploded form object), not as filters[...].
      querySerializer: { object: { style: 'form', explode: true } },
    });
    return data;
  }, [key]);
  return (
    <Page title="Rooms">
      <RoomFilters filters={filters} key={key} />
      <Listing
        load={rooms}
        what="rooms"
        empty={
          <EmptyState title={filters.length === 0 ? 'No rooms yet.' : 'No room matches these filters.'}>
            <p>
              {filters.length === 0
                ? 'Create one below, or with POST /v1/rooms from your backend.'
                : 'Change or clear the filters to see other rooms.'}
            </p>
          </EmptyState>
        }
      >
        {(page) => (
          <>
            <Table caption="Rooms, newest first" head={['Room', 'Id', 'Metadata', 'Created']}>
              {page.data.map((room) => (
                <tr key={room.id}>
                  <td>
                    <Link to={tenantPath(`rooms/${encodeURIComponent(room.id)}`)}>
                      {room.name ?? room.id}
                    </Link>
                  </td>
                  <td>
                    <code>{room.id}</code>
                  </td>
                  <td>{formatPairs(room.metadata) || '—'}</td>
                  <td>
                    <Time value={room.createdAt} />
                  </td>
                </tr>
              ))}
            </Table>
            <Pager class="live-pager" cursor={cursor} next={page.nextCursor} />
          </>
        )}
      </Listing>
      <CreateRoomForm />
    </Page>
  );
}
