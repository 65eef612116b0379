create table rooms (
  tenant_id text not null references tenants (id) on delete cascade,
  id text not null,
  -- Insertion order within the service: stable keyset pagination whatever the ids look like.
  seq bigint generated always as identity,
  name text,
  metadata jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, id)
);
create index rooms_tenant_seq on rooms (tenant_id, seq desc);
create index rooms_metadata on rooms using gin (metadata jsonb_path_ops);
select svc_enable_tenant_rls('rooms');
