-- Roles for row-level security. Both own nothing and log in as nobody: the service's own connection
-- switches to them per transaction (set_config('role', ...)).
--   svc_tenant: sees one tenant's rows, the one in svc.tenant_id.
--   svc_system: sees all tenants; for credential lookup and background workers.
do $$
begin
  create role svc_tenant nologin;
exception when duplicate_object or unique_violation then null;
end $$;

do $$
begin
  create role svc_system nologin;
exception when duplicate_object or unique_violation then null;
end $$;

grant svc_tenant to current_user;
grant svc_system to current_user;
grant usage on schema public to svc_tenant, svc_system;

-- Every tenant table calls this once after it is created: RLS enabled and forced, one policy per role.
create or replace function svc_enable_tenant_rls(tbl regclass, tenant_column text default 'tenant_id')
returns void language plpgsql as $fn$
begin
  execute format('alter table %s enable row level security', tbl);
  execute format('alter table %s force row level security', tbl);
  execute format(
    'create policy tenant_isolation on %s to svc_tenant using (%I = current_setting(''svc.tenant_id'', true)) with check (%I = current_setting(''svc.tenant_id'', true))',
    tbl, tenant_column, tenant_column);
  execute format('create policy system_access on %s to svc_system using (true) with check (true)', tbl);
  execute format('grant select, insert, update, delete on %s to svc_tenant, svc_system', tbl);
end
$fn$;

create table tenants (
  id text primary key,
  name text not null check (length(name) between 1 and 200),
  workspace_type text not null check (workspace_type in ('commerce', 'community', 'sandbox')),
  created_at timestamptz not null default now()
);
select svc_enable_tenant_rls('tenants', 'id');
