-- People who sign in to the console through the hosted auth provider. A user belongs to no tenant by
-- itself; memberships do. The tenant role sees a user only while that user is a member of its tenant.
create table users (
  id text primary key,
  identity_provider text not null,
  provider_user_id text not null,
  email text,
  name text,
  created_at timestamptz not null default now(),
  unique (identity_provider, provider_user_id)
);
create index users_email on users (lower(email));

create table memberships (
  tenant_id text not null references tenants (id) on delete cascade,
  user_id text not null references users (id) on delete cascade,
  role text not null check (role in ('owner', 'admin', 'developer', 'viewer')),
  created_at timestamptz not null default now(),
  primary key (tenant_id, user_id)
);
create index memberships_user on memberships (user_id);
select svc_enable_tenant_rls('memberships');

alter table users enable row level security;
alter table users force row level security;
create policy tenant_isolation on users to svc_tenant
  using (exists (select 1 from memberships m where m.user_id = users.id
                   and m.tenant_id = current_setting('svc.tenant_id', true)))
  with check (false);
create policy system_access on users to svc_system using (true) with check (true);
grant select on users to svc_tenant;
grant select, insert, update, delete on users to svc_system;

create table invitations (
  id text primary key,
  tenant_id text not null references tenants (id) on delete cascade,
  email text not null,
  role text not null check (role in ('owner', 'admin', 'developer', 'viewer')),
  invited_by text references users (id) on delete set null,
  created_at timestamptz not null default now(),
  accepted_at timestamptz,
  accepted_by text references users (id) on delete set null
);
create unique index invitations_pending on invitations (tenant_id, lower(email)) where accepted_at is null;
create index invitations_email on invitations (lower(email)) where accepted_at is null;
select svc_enable_tenant_rls('invitations');

-- End users, guests and agents of a tenant's app, known by a provider-qualified external id.
create table actors (
  id uuid primary key default gen_random_uuid(),
  tenant_id text not null references tenants (id) on delete cascade,
  type text not null check (type in ('end_user', 'agent', 'guest')),
  external_id text not null,
  identity_provider text not null,
  display_name text,
  avatar_url text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (tenant_id, external_id)
);
select svc_enable_tenant_rls('actors');

create table api_keys (
  id text primary key,
  tenant_id text not null references tenants (id) on delete cascade,
  name text not null,
  prefix text not null unique,
  secret_hash bytea not null,
  scopes text[] not null,
  created_by text references users (id) on delete set null,
  created_at timestamptz not null default now(),
  expires_at timestamptz,
  revoked_at timestamptz,
  last_used_at timestamptz
);
create index api_keys_tenant on api_keys (tenant_id, created_at desc);
select svc_enable_tenant_rls('api_keys');

create table product_keys (
  id text primary key,
  tenant_id text not null references tenants (id) on delete cascade,
  name text not null,
  key text not null unique,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);
select svc_enable_tenant_rls('product_keys');

-- Revoked credentials, in commit order: every instance polls for rows past the last seq it has seen,
-- so a revocation reaches all of them within the poll interval without any other messaging.
create table credential_revocations (
  seq bigint generated always as identity primary key,
  tenant_id text not null references tenants (id) on delete cascade,
  kind text not null check (kind in ('api_key', 'session', 'actor_sessions')),
  subject text not null,
  revoked_at timestamptz not null default now(),
  -- Until when the entry matters (a session token's expiry); null = forever.
  expires_at timestamptz
);
create index credential_revocations_subject on credential_revocations (kind, subject);
select svc_enable_tenant_rls('credential_revocations');

-- The service's own signing keys for session tokens; shared by every instance through the database.
create table signing_keys (
  kid text primary key,
  alg text not null,
  private_jwk jsonb not null,
  public_jwk jsonb not null,
  created_at timestamptz not null default now(),
  retired_at timestamptz
);
grant select, insert on signing_keys to svc_system;
