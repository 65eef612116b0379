-- While an instance knows a tenant has no enabled webhook endpoint, it writes the tenant's events without
-- the webhook fan-out (no delivery bodies serialized and sent for nothing, endpoint-presence.ts). The
-- statement checks instead: when the tenant has an enabled endpoint after all (made or enabled meanwhile,
-- on any instance), it fails whole through this function (SQLSTATE SVW01), and the event store writes it
-- again with the fan-out. Volatile, so it is never evaluated ahead of the row that calls it.
create function webhook_endpoints_appeared(tenant text) returns text
language plpgsql volatile as $$
begin
  raise exception 'tenant % has an enabled webhook endpoint', tenant using errcode = 'SVW01';
end
$$;
