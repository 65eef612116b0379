-- Which modules a tenant has switched on, and its configuration for each.
create table tenant_modules (
  tenant_id text not null references tenants (id) on delete cascade,
  module text not null,
  enabled boolean not null,
  config jsonb not null default '{}'::jsonb,
  updated_at timestamptz not null default now(),
  primary key (tenant_id, module)
);
select svc_enable_tenant_rls('tenant_modules');
