-- Rooms per tenant, kept in the transaction that creates or deletes a room, so the maxRooms check is one
-- row update instead of a count over the table.
create table room_counts (
  tenant_id text primary key references tenants (id) on delete cascade,
  n integer not null check (n >= 0)
);
insert into room_counts (tenant_id, n) select tenant_id, count(*) from rooms group by tenant_id;
select svc_enable_tenant_rls('room_counts');
