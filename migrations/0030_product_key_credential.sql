-- Product keys become a credential (X-SVC-Product-Key): each may be limited to browser origins, has its own
-- request rate per client address, and may speak for one operator of the tenant (the storefront module's
-- white-label businesses; an opaque id here, checked by whoever binds it).
alter table product_keys
  add column allowed_origins text[] not null default '{}',
  add column rate_limit_per_minute integer not null default 600
    check (rate_limit_per_minute between 1 and 100000),
  add column operator_id text;

-- Looked up by the key itself on every cold verification (the unique index serves it); listed per tenant.
create index product_keys_tenant on product_keys (tenant_id, created_at desc);

-- A product key revoked or edited: every instance drops its cached copy at its next poll.
alter table credential_revocations drop constraint credential_revocations_kind_check;
alter table credential_revocations add constraint credential_revocations_kind_check
  check (kind in ('api_key', 'session', 'actor_sessions', 'product_key'));
