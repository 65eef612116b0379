-- A group of bids decided on the state its instance wrote last runs as one statement with no lock taken
-- before (place-bid.ts, `knownGroup`). When another writer moved the auction meanwhile, that statement
-- must fail whole, its events with it: it calls this function, whose error (SQLSTATE SVA01) sends the
-- group to the locked path. Volatile, so it is never evaluated ahead of the condition that calls it.
create function auction_moved(auction_id text, expected_seq bigint) returns text
language plpgsql volatile as $$
begin
  raise exception 'auction % is no longer at seq %', auction_id, expected_seq using errcode = 'SVA01';
end
$$;
