import { useSignal } from '@preact/signals';
import { api } from '../../lib/api.ts';
import { TextField } from '../../lib/fields.tsx';
import { useLoad } from '../../lib/load.ts';
import { parseMoney } from '../../lib/money.ts';
import { ErrorNotice } from '../../lib/ui.tsx';

type Problems = Partial<
  Record<'roomId' | 'title' | 'startingPrice' | 'increment' | 'duration' | 'startsAt', string>
>;

interface Draft {
  roomId: string;
  title: string;
  currency: string;
  startingPrice: string;
  increment: string;
  durationMinutes: string;
  startsAt: string;
}

/** The create body from what was typed, or the problems to show beside the fields. */
function validate(draft: Draft) {
  const problems: Problems = {};
  const currency = draft.currency.trim().toUpperCase();
  const startingPrice = parseMoney(draft.startingPrice, currency);
  const increment = draft.increment.trim() === '' ? undefined : parseMoney(draft.increment, currency);
  const minutes = Number(draft.durationMinutes);
  const startsAt = draft.startsAt === '' ? undefined : new Date(draft.startsAt);
  if (draft.roomId.trim() === '') problems.roomId = 'Choose the room the auction runs in';
  if (draft.title.trim() === '') problems.title = 'Give the item a title';
  if (startingPrice === undefined) problems.startingPrice = 'An amount such as 25 or 25.50';
  if (draft.increment.trim() !== '' && (increment === undefined || increment < 1))
    problems.increment = 'An amount above zero, or empty for the tenant’s increment table';
  if (!Number.isInteger(minutes) || minutes < 1 || minutes > 43_200)
    problems.duration = 'Whole minutes, from 1 to 43200 (30 days)';
  if (startsAt !== undefined && Number.isNaN(startsAt.getTime())) problems.startsAt = 'A date and time';
  if (Object.keys(problems).length > 0) return { problems };
  return {
    body: {
      roomId: draft.roomId.trim(),
      title: draft.title.trim(),
      currency,
      startingPrice: startingPrice ?? 0,
      durationSeconds: minutes * 60,
      ...(increment === undefined ? {} : { increments: [{ from: 0, increment }] }),
    },
    startsAt: startsAt?.toISOString(),
  };
}

/** Creates an auction in draft (and schedules it when a start time is given). */
export function CreateAuctionForm(props: { created: () => void; roomId?: string | undefined }) {
  const roomId = useSignal(props.roomId ?? '');
  const title = useSignal('');
  const currency = useSignal('EUR');
  const startingPrice = useSignal('');
  const increment = useSignal('');
  const durationMinutes = useSignal('10');
  const startsAt = useSignal('');
  const problems = useSignal<Problems>({});
  const error = useSignal<unknown>(undefined);
  const done = useSignal<string | undefined>(undefined);
  const busy = useSignal(false);
  const rooms = useLoad(
    async () => (await api.GET('/v1/rooms', { params: { query: { limit: 100 } } })).data,
    [],
  );
  return (
    <form
      class="live-form"
      aria-labelledby="create-auction-title"
      onSubmit={async (event) => {
        event.preventDefault();
        done.value = undefined;
        const checked = validate({
          roomId: roomId.value,
          title: title.value,
          currency: currency.value,
          startingPrice: startingPrice.value,
          increment: increment.value,
          durationMinutes: durationMinutes.value,
          startsAt: startsAt.value,
        });
        problems.value = checked.problems ?? {};
        if (checked.body === undefined) return;
        busy.value = true;
        error.value = undefined;
        try {
          const { data } = await api.POST('/v1/auctions', { body: checked.body });
          if (checked.startsAt !== undefined) {
            await api.POST('/v1/auctions/{auctionId}/schedule', {
              params: { path: { auctionId: data.id } },
              body: { startsAt: checked.startsAt },
            });
          }
          done.value = `Created "${data.title}" ${checked.startsAt === undefined ? 'as a draft' : 'and scheduled it'}.`;
          title.value = '';
          startingPrice.value = '';
          props.created();
        } catch (caught) {
          error.value = caught;
        } finally {
          busy.value = false;
        }
      }}
    >
      <h2 id="create-auction-title">Create an auction</h2>
      <TextField
        label="Room"
        id="auction-room"
        hint="The room's id; its members see the bids live"
        error={problems.value.roomId}
        value={roomId}
        list="auction-room-ids"
      />
      <datalist id="auction-room-ids">
        {(rooms.data.value?.data ?? []).map((room) => (
          <option value={room.id} key={room.id}>
            {room.name ?? room.id}
          </option>
        ))}
      </datalist>
      <TextField label="Item" id="auction-title" error={problems.value.title} value={title} />
      <TextField
        label="Currency"
        id="auction-currency"
        hint="ISO 4217, e.g. EUR, USD, JPY"
        value={currency}
      />
      <TextField
        label="Starting price"
        id="auction-start-price"
        error={problems.value.startingPrice}
        value={startingPrice}
      />
      <TextField
        label="Bid increment (optional)"
        id="auction-increment"
        hint="Each bid at least this much higher; empty: the tenant's increment table"
        error={problems.value.increment}
        value={increment}
      />
      <TextField
        label="Starts at (optional)"
        id="auction-starts-at"
        hint="Your local time; empty: start it by hand"
        error={problems.value.startsAt}
        value={startsAt}
        type="datetime-local"
      />
      <TextField
        label="Duration in minutes"
        id="auction-duration"
        hint="How long it runs once live, before soft-close extensions"
        error={problems.value.duration}
        value={durationMinutes}
        type="number"
      />
      {error.value === undefined ? null : <ErrorNotice error={error.value} />}
      {done.value === undefined ? null : (
        <p class="notice ok" role="status">
          {done.value}
        </p>
      )}
      <button type="submit" disabled={busy.value}>
        Create auction
      </button>
    </form>
  );
}
