-- The tenant event log, written in the same transaction as the change each event describes (outbox).
create table events (
  id text not null,
  tenant_id text not null references tenants (id) on delete cascade,
  type text not null,
  data jsonb not null,
  trace jsonb not null,
  created_at timestamptz not null,
  primary key (tenant_id, id)
);
create index events_tenant_type on events (tenant_id, type, id);
create index events_tenant_created on events (tenant_id, created_at);
select svc_enable_tenant_rls('events');
