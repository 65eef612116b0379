-- The API names a bidder or winner only as the Actor object (issue 29): {type, id: '<provider>:<external_id>',
-- identityProvider}, never by the internal actor id. Before, auctions answered {id: <internal uuid>, type,
-- externalId}, and kept that shape in three places that are read back:
-- - the stored state (auctions.leader and winner) and the bids (auction_bids.bidder) keep the internal
--   reference, which the rules compare bidders by; it gains identityProvider, from which answers are made;
-- - the realtime log (auction_log.frame), which resuming sockets replay as it is, and the events (events.data),
--   which GET /v1/events and webhook deliveries read, take the Actor object, as those written from now on do.
-- An actor deleted since keeps its provider as the prefix of its id.

create function auction_actor_provider(tenant text, actor_id text, external_id text) returns text
language sql stable as $$
  select coalesce(
    (select a.identity_provider from actors a where a.tenant_id = tenant and a.id::text = actor_id),
    split_part(external_id, ':', 1))
$$;

-- Every object shaped {id, type, externalId} inside `value`, as the Actor object.
create function auction_actor_views(tenant text, value jsonb) returns jsonb
language plpgsql stable as $$
declare
  shown jsonb := '{}'::jsonb;
  k text;
  v jsonb;
begin
  if jsonb_typeof(value) = 'array' then
    select coalesce(jsonb_agg(auction_actor_views(tenant, e) order by i), '[]'::jsonb)
      into shown from jsonb_array_elements(value) with ordinality as t(e, i);
    return shown;
  end if;
  if jsonb_typeof(value) is distinct from 'object' then
    return value;
  end if;
  if value ? 'externalId' and value ? 'id' and value ? 'type' then
    return jsonb_build_object('type', value -> 'type', 'id', value -> 'externalId', 'identityProvider',
      auction_actor_provider(tenant, value ->> 'id', value ->> 'externalId'));
  end if;
  for k, v in select * from jsonb_each(value) loop
    shown := shown || jsonb_build_object(k, auction_actor_views(tenant, v));
  end loop;
  return shown;
end
$$;

update auctions
   set leader = leader || jsonb_build_object('identityProvider',
         auction_actor_provider(tenant_id, leader ->> 'id', leader ->> 'externalId'))
 where leader is not null and not leader ? 'identityProvider';

update auctions
   set winner = winner || jsonb_build_object('identityProvider',
         auction_actor_provider(tenant_id, winner ->> 'id', winner ->> 'externalId'))
 where winner is not null and not winner ? 'identityProvider';

update auction_bids
   set bidder = bidder || jsonb_build_object('identityProvider',
         auction_actor_provider(tenant_id, bidder ->> 'id', bidder ->> 'externalId'))
 where not bidder ? 'identityProvider';

update auction_log
   set frame = auction_actor_views(tenant_id, frame)
 where frame::text like '%"externalId"%';

update events
   set data = auction_actor_views(tenant_id, data)
 where type like 'auction.%' and data::text like '%"externalId"%';

drop function auction_actor_views(text, jsonb);
drop function auction_actor_provider(text, text, text);
