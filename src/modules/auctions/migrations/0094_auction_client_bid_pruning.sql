-- A refused bid's (bidder, clientBidId) key lives as long as its refusal. Refusals are a log, deleted past
-- their retention (retention.ts); their keys went on, so the table grew with every refused bid ever
-- placed, and a retry older than the refusal was failed by its key, then decided again under the lock.
-- An accepted bid is kept forever, and so is its key (no refusal carries it).
create or replace function auction_client_bids_forget() returns trigger language plpgsql as $fn$
begin
  delete from auction_client_bids k
   using gone g
   where g.client_bid_id is not null and g.bidder_actor_id is not null
     and k.tenant_id = g.tenant_id and k.auction_id = g.auction_id
     and k.bidder_actor_id = g.bidder_actor_id and k.client_bid_id = g.client_bid_id
     and not exists (
       select 1 from auction_bids b
        where b.tenant_id = g.tenant_id and b.auction_id = g.auction_id
          and b.bidder_actor_id = g.bidder_actor_id and b.client_bid_id = g.client_bid_id);
  return null;
end
$fn$;

create trigger auction_rejections_forget_keys
  after delete on auction_rejections
  referencing old table as gone
  for each statement execute function auction_client_bids_forget();
