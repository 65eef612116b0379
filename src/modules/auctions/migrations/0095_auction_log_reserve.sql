-- Realtime frames reach end users, and a resuming socket reads them from auction_log: the auction a frame
-- carries loses its reserve amount (it says hasReserve instead), as frames written from now on do
-- (audience.ts, endUserFrame). The events keep the amount: they go to the tenant's servers.
update auction_log
   set frame = jsonb_set(frame #- '{auction,reservePrice}', '{auction,hasReserve}',
                         to_jsonb(jsonb_typeof(frame -> 'auction' -> 'reservePrice') = 'number'))
 where frame -> 'auction' ? 'reservePrice';

update auction_log
   set frame = jsonb_set(frame #- '{changes,reservePrice}', '{changes,hasReserve}',
                         to_jsonb(jsonb_typeof(frame -> 'changes' -> 'reservePrice') = 'number'))
 where frame -> 'changes' ? 'reservePrice';
