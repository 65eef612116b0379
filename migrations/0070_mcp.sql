-- MCP surface: each tenant's human-confirmation policy, and the one-time confirmation tokens it hands out.

-- No row = the default policy ('destructive').
create table mcp_policies (
  tenant_id text primary key references tenants (id) on delete cascade,
  confirm text not null check (confirm in ('required_only', 'destructive', 'writes', 'all')),
  updated_at timestamptz not null default now()
);
select svc_enable_tenant_rls('mcp_policies');

-- A token answers one confirmation request: one tenant, one caller, one tool, one set of arguments, once.
-- In the database (not in memory) so that any instance accepts the repeated call.
create table mcp_confirmations (
  -- sha256 (hex) of the token; the token itself is never stored.
  id text primary key check (id ~ '^[0-9a-f]{64}$'),
  tenant_id text not null references tenants (id) on delete cascade,
  -- `actor:<id>` or `api_key:<id>`: who asked.
  caller text not null,
  tool text not null,
  arguments_hash text not null check (arguments_hash ~ '^[0-9a-f]{64}$'),
  created_at timestamptz not null,
  expires_at timestamptz not null,
  used_at timestamptz
);
create index mcp_confirmations_expiry on mcp_confirmations (tenant_id, expires_at);
select svc_enable_tenant_rls('mcp_confirmations');
