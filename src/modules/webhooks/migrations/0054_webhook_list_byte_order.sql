-- Lists page through their rows with core's keyset pager, which orders text ids in byte order
-- (`id collate "C"`, the same on every database whatever its default collation). These indexes are read in
-- that order, so a page stays an index scan that stops after limit + 1 rows.
drop index if exists webhook_deliveries_list;
create index webhook_deliveries_list on webhook_deliveries (tenant_id, endpoint_id, id collate "C");
create index webhook_deliveries_tenant_list on webhook_deliveries (tenant_id, id collate "C");
create index webhook_endpoints_list on webhook_endpoints (tenant_id, id collate "C");
