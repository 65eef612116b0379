-- A payment's customer is an actor of the tenant, linked by its row as chat's authors and auctions' bidders
-- are, so every answer, event and webhook names it with the API's one Actor object. The ledger still names
-- its account customer:<the actor's id, <provider>:<external_id>>, the string stored until now.
alter table payments add column customer_actor_id uuid references actors (id);

-- Customers named by a bare string (and winners of settlements not yet made, recorded the same way) that
-- no actor row holds yet become actors, as a named actor does on first use: an end user verified by the
-- provider its id names.
insert into actors (tenant_id, type, external_id, identity_provider)
select distinct tenant_id, 'end_user', external_id, split_part(external_id, ':', 1)
  from (select tenant_id, customer as external_id from payments where customer is not null
        union
        select tenant_id, data ->> 'winner' from payment_settlements
         where state = 'pending' and jsonb_typeof(data -> 'winner') = 'string') named
on conflict (tenant_id, external_id) do nothing;

update payments p
   set customer_actor_id = a.id
  from actors a
 where a.tenant_id = p.tenant_id and a.external_id = p.customer;

drop index payments_customer;
alter table payments drop column customer;
create index payments_customer_actor on payments (tenant_id, customer_actor_id, seq desc)
  where customer_actor_id is not null;

-- A settlement's winner is the Actor object auction.ended now carries.
update payment_settlements s
   set data = jsonb_set(s.data, '{winner}',
                        jsonb_build_object('type', a.type, 'id', a.external_id, 'identityProvider', a.identity_provider))
  from actors a
 where a.tenant_id = s.tenant_id and a.external_id = s.data ->> 'winner'
   and jsonb_typeof(s.data -> 'winner') = 'string';
