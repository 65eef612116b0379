-- Each (bidder, clientBidId) a bid on an auction was decided under, accepted or refused, once. A group of
-- bids written without the auction's lock (place-bid.ts, `knownGroup`) inserts its keys here and fails
-- whole when one was there: that bid is a retry, which the locked path answers with its first result.
-- The primary key is the only index, so the check is one probe per key whatever the planner's statistics
-- say of the auction's size (a lookup among its bids scanned all of them when the statistics were older
-- than a hot auction's bids).
create table auction_client_bids (
  tenant_id text not null,
  auction_id text not null,
  bidder_actor_id uuid not null,
  client_bid_id text not null,
  primary key (tenant_id, auction_id, bidder_actor_id, client_bid_id),
  foreign key (tenant_id, auction_id) references auctions (tenant_id, id) on delete cascade
);
select svc_enable_tenant_rls('auction_client_bids');

insert into auction_client_bids (tenant_id, auction_id, bidder_actor_id, client_bid_id)
select tenant_id, auction_id, bidder_actor_id, client_bid_id from auction_bids where client_bid_id is not null
union
select tenant_id, auction_id, bidder_actor_id, client_bid_id from auction_rejections
 where client_bid_id is not null and bidder_actor_id is not null;
