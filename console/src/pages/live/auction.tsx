import { api } from '../../lib/api.ts';
import { useLoad } from '../../lib/load.ts';
import { formatMoney } from '../../lib/money.ts';
import { Link, tenantPath } from '../../lib/router.tsx';
import { EmptyState, ErrorNotice, Loading, Page, Table, Time } from '../../lib/ui.tsx';
import type { PageProps } from '../page.ts';
import { type Auction, AuctionActions } from './auction-actions.tsx';
import { LiveStatus, useLiveRoom } from './realtime.tsx';

const BIDS_PAGE = 50;
/** The console watches the auction's room for its frames, reading only (it never bids). */
const AUCTION_ACCESS = { modules: ['auctions'], scopes: ['auctions:read'] };

/**
 * Runs `load` now and again after each `trigger()`; triggers that come while a load runs are folded into
 * one more load after it, so a burst of bids costs two reads, not one per bid.
 */
function coalesced(load: () => Promise<unknown>): () => void {
  let running = false;
  let again = false;
  const run = async () => {
    running = true;
    do {
      again = false;
      await load().catch(() => undefined);
    } while (again);
    running = false;
  };
  return () => {
    if (running) again = true;
    else void run();
  };
}

function AuctionState(props: { auction: Auction }) {
  const a = props.auction;
  return (
    <dl class="live-details">
      <dt>Status</dt>
      <dd>
        <span class={`live-badge live-badge-${a.status}`}>{a.status}</span>
        {a.outcome === null ? '' : ` (${a.outcome})`}
      </dd>
      <dt>Room</dt>
      <dd>
        <Link to={tenantPath(`rooms/${encodeURIComponent(a.roomId)}`)}>{a.roomId}</Link>
      </dd>
      <dt>Current price</dt>
      <dd>
        <strong>{formatMoney(a.currentPrice, a.currency)}</strong> (starting at{' '}
        {formatMoney(a.startingPrice, a.currency)})
      </dd>
      <dt>Minimum next bid</dt>
      <dd>{formatMoney(a.minimumBid, a.currency)}</dd>
      <dt>Leading</dt>
      <dd>
        {a.leadingBid === null ? 'no bid yet' : (a.leadingBid.bidder.displayName ?? a.leadingBid.bidder.id)}
      </dd>
      <dt>Bids</dt>
      <dd>{a.bidCount}</dd>
      <dt>Reserve</dt>
      <dd>
        {a.reservePrice === null || a.reservePrice === undefined
          ? 'none'
          : `${formatMoney(a.reservePrice, a.currency)} (${a.reserveMet ? 'met' : 'not met'})`}
      </dd>
      <dt>Starts</dt>
      <dd>
        <Time value={a.startedAt ?? a.startsAt} />
      </dd>
      <dt>Ends</dt>
      <dd>
        <Time value={a.endedAt ?? a.endsAt} />
        {a.extensions === 0 ? '' : ` (extended ${a.extensions}×)`}
      </dd>
      {a.winner === null ? null : (
        <>
          <dt>Winner</dt>
          <dd>
            {a.winner.displayName ?? a.winner.id} at {formatMoney(a.finalPrice, a.currency)}
          </dd>
        </>
      )}
    </dl>
  );
}

/** One auction: where it stands and its bids, both updated as bids arrive; start and cancel it. */
export function AuctionPage(props: PageProps) {
  const auctionId = props.params.auctionId ?? '';
  const path = { params: { path: { auctionId } } };
  const auction = useLoad(async () => (await api.GET('/v1/auctions/{auctionId}', path)).data, [auctionId]);
  const bids = useLoad(
    async () =>
      (
        await api.GET('/v1/auctions/{auctionId}/bids', {
          params: { ...path.params, query: { limit: BIDS_PAGE } },
        })
      ).data,
    [auctionId],
  );
  const current = auction.data.value;
  const refresh = coalesced(() => Promise.all([auction.reload(), bids.reload()]));
  const live = useLiveRoom(
    current?.roomId,
    AUCTION_ACCESS,
    (room) => {
      room.on('auction', (frame) => {
        if (frame.auctionId === auctionId) refresh();
      });
      // Frames sent while the socket was being opened are read from the auction itself once joined.
      room.on('joined', () => refresh());
    },
    refresh,
  );
  const page = bids.data.value;
  return (
    <Page title={current === undefined ? `Auction ${auctionId}` : current.title}>
      <p>
        <Link to={tenantPath('auctions')}>All auctions</Link>
      </p>
      {auction.error.value === undefined ? null : <ErrorNotice error={auction.error.value} />}
      {current === undefined ? (
        auction.loading.value ? (
          <Loading what="the auction" />
        ) : null
      ) : (
        <>
          <AuctionState auction={current} />
          <AuctionActions auction={current} done={() => refresh()} />
          <LiveStatus mode={live.mode.value} />
          {live.error.value === undefined ? null : <ErrorNotice error={live.error.value} />}
        </>
      )}
      <section class="live-panel" aria-labelledby="bids-title">
        <h2 id="bids-title">Bids</h2>
        {bids.error.value === undefined ? null : <ErrorNotice error={bids.error.value} />}
        {page === undefined ? (
          bids.loading.value ? (
            <Loading what="bids" />
          ) : null
        ) : page.data.length === 0 ? (
          <EmptyState title="No bids yet.">
            <p>
              {current?.status === 'live'
                ? 'Bids appear here as they are placed.'
                : 'Bids are taken once the auction is live: start it, or wait for its start time.'}
            </p>
          </EmptyState>
        ) : (
          <Table
            caption={`The latest ${BIDS_PAGE} bids, newest first`}
            head={['#', 'Bidder', 'Bid', 'Price after', 'Leading', 'Placed']}
          >
            {page.data.map((bid) => (
              <tr key={bid.id}>
                <td>{bid.seq}</td>
                <td>{bid.bidder.displayName ?? bid.bidder.id}</td>
                <td>
                  {formatMoney(bid.amount, current?.currency ?? 'EUR')}
                  {bid.kind === 'buy_now' ? ' (buy now)' : ''}
                </td>
                <td>{formatMoney(bid.priceAfter, current?.currency ?? 'EUR')}</td>
                <td>{bid.leading ? 'yes' : 'no'}</td>
                <td>
                  <Time value={bid.createdAt} />
                </td>
              </tr>
            ))}
          </Table>
        )}
      </section>
    </Page>
  );
}
