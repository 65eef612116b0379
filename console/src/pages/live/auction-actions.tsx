import { useSignal } from '@preact/signals';
import type { components } from '@svc/client';
import { api } from '../../lib/api.ts';
import { ConfirmButton, ErrorNotice } from '../../lib/ui.tsx';

export type Auction = components['schemas']['Auction'];

/** Start (a draft or scheduled auction, now) and cancel (confirmed) for one auction; `done` reloads. */
export function AuctionActions(props: { auction: Auction; done: () => void }) {
  const { auction } = props;
  const busy = useSignal(false);
  const error = useSignal<unknown>(undefined);
  const startable = auction.status === 'draft' || auction.status === 'scheduled';
  const cancellable = startable || auction.status === 'live';
  if (!cancellable) return null;
  return (
    <span class="live-actions">
      {startable ? (
        <button
          type="button"
          disabled={busy.value}
          aria-label={`Start ${auction.title}`}
          onClick={async () => {
            busy.value = true;
            error.value = undefined;
            try {
              await api.POST('/v1/auctions/{auctionId}/start', {
                params: { path: { auctionId: auction.id } },
              });
              props.done();
            } catch (caught) {
              error.value = caught;
            } finally {
              busy.value = false;
            }
          }}
        >
          Start
        </button>
      ) : null}{' '}
      <ConfirmButton
        label="Cancel auction"
        confirm={`Cancel "${auction.title}"? ${auction.bidCount > 0 ? `Its ${auction.bidCount} bids are kept, but nobody wins.` : 'It cannot be started again.'}`}
        onConfirm={async () => {
          await api.POST('/v1/auctions/{auctionId}/cancel', {
            params: { path: { auctionId: auction.id } },
            body: { reason: 'cancelled in the console' },
          });
          props.done();
        }}
      />
      {error.value === undefined ? null : <ErrorNotice error={error.value} />}
    </span>
  );
}
