-- The unique (tenant_id, id) constraint already has an index on exactly these columns; this second one
-- only cost every insert and update of a delivery one more index entry.
drop index if exists webhook_deliveries_tenant_list;
