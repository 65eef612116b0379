-- Storefront: the businesses a tenant runs white-label apps for (operators), the brand and listing settings
-- the public surface answers with (the tenant's, and each operator's overrides), and mobile build requests.

create table operators (
  tenant_id text not null references tenants (id) on delete cascade,
  -- Globally unique (a console route names an operator alone and resolves its tenant from it).
  id text not null unique,
  -- Insertion order: stable keyset pagination of the list, newest first.
  list_seq bigint generated always as identity,
  name text not null,
  slug text not null,
  -- Brand fields that replace the tenant's, field by field (only the fields set).
  brand jsonb not null default '{}'::jsonb,
  -- App identifiers and store listing fields: androidPackage, iosBundleId, appName, store listing texts.
  app jsonb not null default '{}'::jsonb,
  -- Which of the tenant's published auctions the operator's storefront lists ({roomIds}); {} = the tenant's.
  listing jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, id),
  unique (tenant_id, slug)
);
create index operators_list on operators (tenant_id, list_seq);
select svc_enable_tenant_rls('operators');

-- One row per tenant: what its storefront shows. Absent = the defaults (brand name = tenant name).
create table storefront_configs (
  tenant_id text not null primary key references tenants (id) on delete cascade,
  brand jsonb not null default '{}'::jsonb,
  -- Browser origins the public routes answer (beside each product key's own list); empty = any.
  allowed_origins text[] not null default '{}',
  -- Which published auctions the public listing shows: all of them, or those of the rooms listed.
  listing jsonb not null default '{}'::jsonb,
  default_locale text not null default 'en',
  default_currency text not null default 'EUR',
  updated_at timestamptz not null default now()
);
select svc_enable_tenant_rls('storefront_configs');

-- A product key may speak for one operator; the operator's deletion takes its keys along.
alter table product_keys
  add constraint product_keys_operator foreign key (operator_id) references operators (id) on delete cascade;

create table mobile_builds (
  tenant_id text not null references tenants (id) on delete cascade,
  id text not null unique,
  list_seq bigint generated always as identity,
  operator_id text not null,
  platform text not null check (platform in ('android', 'ios')),
  submit_to_stores boolean not null,
  requested_by text,
  status text not null check (status in ('dev_mode', 'queued', 'failed', 'succeeded')),
  -- Why it failed (GitHub's refusal, or the CI's report), and where the CI shows the build.
  error text,
  build_url text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  completed_at timestamptz,
  primary key (tenant_id, id),
  foreign key (tenant_id, operator_id) references operators (tenant_id, id) on delete cascade
);
create index mobile_builds_operator on mobile_builds (tenant_id, operator_id, list_seq);
select svc_enable_tenant_rls('mobile_builds');
