import { useSignal } from '@preact/signals';
import { api } from '../../lib/api.ts';
import { TextField } from '../../lib/fields.tsx';
import { navigate, tenantPath } from '../../lib/router.tsx';
import { ErrorNotice } from '../../lib/ui.tsx';
import { metadataValue, parsePairs } from './metadata.ts';

/** Creates a room (id, name, metadata) and opens it. */
export function CreateRoomForm() {
  const id = useSignal('');
  const name = useSignal('');
  const metadata = useSignal('');
  const problem = useSignal<string | undefined>(undefined);
  const error = useSignal<unknown>(undefined);
  const busy = useSignal(false);
  return (
    <form
      class="live-form"
      aria-labelledby="create-room-title"
      onSubmit={async (event) => {
        event.preventDefault();
        const parsed = parsePairs(metadata.value);
        if ('error' in parsed) {
          problem.value = parsed.error;
          return;
        }
        problem.value = undefined;
        error.value = undefined;
        busy.value = true;
        try {
          const { data } = await api.POST('/v1/rooms', {
            body: {
              ...(id.value.trim() === '' ? {} : { id: id.value.trim() }),
              ...(name.value.trim() === '' ? {} : { name: name.value.trim() }),
              ...(parsed.pairs.length === 0
                ? {}
                : { metadata: Object.fromEntries(parsed.pairs.map(([k, v]) => [k, metadataValue(v)])) }),
            },
          });
          navigate(tenantPath(`rooms/${encodeURIComponent(data.id)}`));
        } catch (caught) {
          error.value = caught;
        } finally {
          busy.value = false;
        }
      }}
    >
      <h2 id="create-room-title">Create a room</h2>
      <TextField
        label="Id (optional)"
        id="room-id"
        hint="Letters, digits, _ and -; generated (room_…) when empty"
        value={id}
      />
      <TextField label="Name" id="room-name" value={name} maxLength={200} />
      <TextField
        label="Metadata"
        id="room-metadata"
        hint="key=value pairs separated by commas; numbers and true/false are stored as such"
        error={problem.value}
        value={metadata}
        placeholder="tier=2, brand=acme"
      />
      {error.value === undefined ? null : <ErrorNotice error={error.value} />}
      <button type="submit" disabled={busy.value}>
        Create room
      </button>
    </form>
  );
}
