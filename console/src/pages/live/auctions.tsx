import { api } from '../../lib/api.ts';
import { SelectField } from '../../lib/fields.tsx';
import { Listing, Pager } from '../../lib/list.tsx';
import { useLoad } from '../../lib/load.ts';
import { formatMoney } from '../../lib/money.ts';
import { Link, query, setQuery, tenantPath } from '../../lib/router.tsx';
import { EmptyState, Page, Table, Time } from '../../lib/ui.tsx';
import { type Auction, AuctionActions } from './auction-actions.tsx';
import { CreateAuctionForm } from './auction-create.tsx';

const STATUSES = ['draft', 'scheduled', 'live', 'ended', 'cancelled'] as const;
type Status = (typeof STATUSES)[number];
const PAGE_SIZE = 25;

function isStatus(value: string | null): value is Status {
  return STATUSES.some((status) => status === value);
}

function AuctionRow(props: { auction: Auction; reload: () => void }) {
  const { auction } = props;
  return (
    <tr>
      <td>
        <Link to={tenantPath(`auctions/${encodeURIComponent(auction.id)}`)}>{auction.title}</Link>
      </td>
      <td>
        <Link to={tenantPath(`rooms/${encodeURIComponent(auction.roomId)}`)}>{auction.roomId}</Link>
      </td>
      <td>
        <span class={`live-badge live-badge-${auction.status}`}>{auction.status}</span>
      </td>
      <td>{formatMoney(auction.currentPrice ?? auction.startingPrice, auction.currency)}</td>
      <td>{auction.bidCount}</td>
      <td>
        <Time value={auction.endsAt ?? auction.startsAt} />
      </td>
      <td>
        <AuctionActions auction={auction} done={props.reload} />
      </td>
    </tr>
  );
}

/** The tenant's auctions, newest first, by status (in the query string); create, start and cancel them. */
export function AuctionsPage() {
  const params = query.value;
  const wanted = params.get('status');
  const status = isStatus(wanted) ? wanted : undefined;
  const cursor = params.get('cursor') ?? undefined;
  const roomId = params.get('roomId') ?? undefined;
  const auctions = useLoad(async () => {
    const { data } = await api.GET('/v1/auctions', {
      params: {
        query: {
          limit: PAGE_SIZE,
          ...(status === undefined ? {} : { status }),
          ...(roomId === undefined ? {} : { roomId }),
          ...(cursor === undefined ? {} : { cursor }),
        },
      },
    });
    return data;
  }, [status, cursor, roomId]);
  const reload = () => void auctions.reload();
  return (
    <Page title="Auctions">
      <div class="live-filters">
        <SelectField
          label="Status"
          id="auction-status"
          value={status ?? ''}
          choices={[{ value: '', label: 'Any status' }, ...STATUSES]}
          onChange={(value) => setQuery({ status: value, roomId })}
        />
        {roomId === undefined ? null : (
          <p>
            In room <code>{roomId}</code> only.{' '}
            <button type="button" class="secondary" onClick={() => setQuery({ status })}>
              Show every room
            </button>
          </p>
        )}
      </div>
      <Listing
        load={auctions}
        what="auctions"
        empty={
          <EmptyState title={status === undefined ? 'No auctions yet.' : `No ${status} auctions.`}>
            <p>
              {status === undefined
                ? 'Create one below: it starts as a draft, then start it or give it a start time.'
                : 'Choose another status, or "Any status".'}
            </p>
          </EmptyState>
        }
      >
        {(page) => (
          <>
            <Table
              caption="Auctions, newest first"
              head={['Auction', 'Room', 'Status', 'Price', 'Bids', 'Starts or ends', 'Actions']}
            >
              {page.data.map((auction) => (
                <AuctionRow auction={auction} reload={reload} key={auction.id} />
              ))}
            </Table>
            <Pager class="live-pager" cursor={cursor} next={page.nextCursor} />
          </>
        )}
      </Listing>
      <CreateAuctionForm created={reload} roomId={roomId} />
    </Page>
  );
}
