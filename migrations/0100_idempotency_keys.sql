-- Idempotency-Key (a platform feature routes switch on): the first response to a key, per tenant, replayed
-- to retries with the same request; `running` while the first request is in flight, so a concurrent retry
-- is refused instead of running twice.
create table idempotency_keys (
  tenant_id text not null references tenants (id) on delete cascade,
  key text not null check (length(key) between 1 and 255),
  -- sha-256 of method, route and body: a retry must send the same request.
  fingerprint text not null,
  state text not null check (state in ('running', 'done')),
  status_code integer,
  content_type text,
  body text,
  created_at timestamptz not null default now(),
  -- A `running` key whose request died with its instance is free again after this.
  locked_until timestamptz not null,
  primary key (tenant_id, key)
);
create index idempotency_keys_created on idempotency_keys (created_at);
select svc_enable_tenant_rls('idempotency_keys');
