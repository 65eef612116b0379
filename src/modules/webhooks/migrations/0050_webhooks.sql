-- Webhooks: endpoints a tenant registers, one delivery row per (event, endpoint), every attempt recorded.
-- Deliveries are the work queue: workers claim due rows with FOR UPDATE SKIP LOCKED and a lease.

create table webhook_endpoints (
  id text primary key,
  tenant_id text not null references tenants (id) on delete cascade,
  url text not null check (length(url) between 1 and 2048),
  -- The HMAC key. It must be readable to sign, so it is stored as given (see docs/webhooks.md).
  secret text not null check (length(secret) >= 16),
  -- After a rotation the old secret keeps signing until previous_secret_expires_at.
  previous_secret text,
  previous_secret_expires_at timestamptz,
  -- null = every event type; otherwise exact types or `prefix.*` patterns.
  event_types text[] check (event_types is null or cardinality(event_types) >= 1),
  enabled boolean not null default true,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  unique (tenant_id, id),
  check ((previous_secret is null) = (previous_secret_expires_at is null))
);
create index webhook_endpoints_enabled on webhook_endpoints (tenant_id) where enabled;
select svc_enable_tenant_rls('webhook_endpoints');

create table webhook_deliveries (
  id text primary key,
  tenant_id text not null references tenants (id) on delete cascade,
  endpoint_id text not null,
  event_id text not null,
  event_type text not null,
  -- The exact JSON bytes sent on every attempt (signatures cover them).
  body text not null,
  trace_id text not null check (trace_id ~ '^[0-9a-f]{32}$'),
  trace_flags text not null default '00' check (trace_flags ~ '^[0-9a-f]{2}$'),
  state text not null default 'pending' check (state in ('pending', 'delivered', 'dead_lettered')),
  -- Every attempt ever made (numbering of webhook_attempts); cycle_attempt_count counts the failures that
  -- consume the retry schedule in the current cycle (a redelivery starts a new cycle).
  attempt_count integer not null default 0,
  cycle integer not null default 1,
  cycle_attempt_count integer not null default 0,
  next_attempt_at timestamptz,
  lease_owner text,
  lease_token text,
  lease_expires_at timestamptz,
  last_attempt_at timestamptz,
  last_status_code integer,
  last_error_class text,
  created_at timestamptz not null,
  delivered_at timestamptz,
  dead_lettered_at timestamptz,
  unique (tenant_id, id),
  foreign key (tenant_id, endpoint_id) references webhook_endpoints (tenant_id, id) on delete cascade,
  check ((state = 'pending') = (next_attempt_at is not null)),
  check ((lease_owner is null) = (lease_expires_at is null))
);
-- One delivery per (endpoint, event): a repeated fan-out of the same event is a no-op.
create unique index webhook_deliveries_event on webhook_deliveries (tenant_id, endpoint_id, event_id);
-- Claiming: per endpoint, due pending rows in due order.
create index webhook_deliveries_due on webhook_deliveries (tenant_id, endpoint_id, next_attempt_at)
  where state = 'pending';
-- The worker's next wake-up: the earliest future retry, the earliest lease to expire.
create index webhook_deliveries_next on webhook_deliveries (next_attempt_at) where state = 'pending';
create index webhook_deliveries_leases on webhook_deliveries (lease_expires_at) where lease_owner is not null;
-- The per-endpoint concurrency cap counts live leases.
create index webhook_deliveries_leased on webhook_deliveries (tenant_id, endpoint_id) where lease_owner is not null;
-- Listing, newest first.
create index webhook_deliveries_list on webhook_deliveries (tenant_id, endpoint_id, id);
create index webhook_deliveries_tenant_list on webhook_deliveries (tenant_id, id);
select svc_enable_tenant_rls('webhook_deliveries');

create table webhook_attempts (
  tenant_id text not null,
  delivery_id text not null,
  attempt integer not null check (attempt >= 1),
  cycle integer not null,
  started_at timestamptz not null,
  duration_ms integer,
  status_code integer,
  -- null = a 2xx answer. `interrupted`: the worker stopped or died mid-attempt (not counted by the schedule).
  error_class text check (error_class in ('timeout', 'connect', 'tls', 'http', 'interrupted')),
  error_message text,
  response_body_excerpt text,
  worker text,
  primary key (tenant_id, delivery_id, attempt),
  foreign key (tenant_id, delivery_id) references webhook_deliveries (tenant_id, id) on delete cascade
);
select svc_enable_tenant_rls('webhook_attempts');
