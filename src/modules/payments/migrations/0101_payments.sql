-- Payments: intents over providers, refunds, an append-only double-entry ledger, auction settlements,
-- provider credentials (encrypted) and inbound provider events (deduplicated).

create table payments (
  tenant_id text not null references tenants (id) on delete cascade,
  id text not null,
  seq bigint generated always as identity,
  amount bigint not null check (amount > 0),
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  capture_method text not null check (capture_method in ('automatic', 'manual')),
  status text not null check (status in ('requires_payment_method', 'requires_confirmation', 'requires_action',
                                         'processing', 'requires_capture', 'succeeded', 'canceled')),
  customer text,
  seller text,
  description text,
  metadata jsonb not null default '{}'::jsonb,
  auction_id text,
  provider text not null,
  provider_ref text,
  payment_method text,
  livemode boolean not null,
  amount_capturable bigint not null default 0 check (amount_capturable >= 0),
  amount_captured bigint not null default 0 check (amount_captured >= 0 and amount_captured <= amount),
  amount_refunded bigint not null default 0 check (amount_refunded >= 0),
  application_fee bigint not null default 0 check (application_fee >= 0),
  last_error jsonb,
  next_action jsonb,
  cancellation_reason text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (tenant_id, id),
  -- Never more refunded (or pending refund) than captured, whoever refunds at once.
  constraint payments_refund_within_captured check (amount_refunded <= amount_captured)
);
create index payments_tenant_seq on payments (tenant_id, seq desc);
create index payments_customer on payments (tenant_id, customer, seq desc);
-- One payment per auction: the settlement of an ended auction happens once, whoever sees its event.
create unique index payments_auction on payments (tenant_id, auction_id) where auction_id is not null;
create index payments_provider_ref on payments (provider, provider_ref) where provider_ref is not null;
select svc_enable_tenant_rls('payments');

create table payment_refunds (
  tenant_id text not null references tenants (id) on delete cascade,
  id text not null,
  payment_id text not null,
  seq bigint generated always as identity,
  amount bigint not null check (amount > 0),
  currency text not null,
  reason text,
  status text not null check (status in ('pending', 'succeeded', 'failed', 'canceled')),
  provider_ref text,
  failure_reason text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (tenant_id, id),
  foreign key (tenant_id, payment_id) references payments (tenant_id, id)
);
create index payment_refunds_payment on payment_refunds (tenant_id, payment_id, seq);
select svc_enable_tenant_rls('payment_refunds');

-- The ledger: transactions of postings that sum to zero per currency. Append-only: neither role may
-- update or delete a row (a tenant's removal cascades as the owner).
create table ledger_transactions (
  tenant_id text not null references tenants (id) on delete cascade,
  id text not null,
  seq bigint generated always as identity,
  kind text not null,
  payment_id text,
  refund_id text,
  created_at timestamptz not null,
  primary key (tenant_id, id)
);
create index ledger_transactions_seq on ledger_transactions (tenant_id, seq desc);
create index ledger_transactions_payment on ledger_transactions (tenant_id, payment_id);
select svc_enable_tenant_rls('ledger_transactions');
revoke update, delete on ledger_transactions from svc_tenant, svc_system;

create table ledger_postings (
  tenant_id text not null,
  transaction_id text not null,
  idx smallint not null,
  seq bigint generated always as identity,
  account text not null,
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  amount bigint not null check (amount <> 0),
  created_at timestamptz not null,
  primary key (tenant_id, transaction_id, idx),
  foreign key (tenant_id, transaction_id) references ledger_transactions (tenant_id, id) on delete cascade
);
create index ledger_postings_account on ledger_postings (tenant_id, account, seq desc);
select svc_enable_tenant_rls('ledger_postings');
revoke update, delete on ledger_postings from svc_tenant, svc_system;

-- An ended auction to settle, recorded in the statement that records its `auction.ended` (outbox), so it is
-- never missed; the payment it gets is unique per auction.
create table payment_settlements (
  tenant_id text not null references tenants (id) on delete cascade,
  auction_id text not null,
  event_id text not null,
  data jsonb not null,
  state text not null default 'pending' check (state in ('pending', 'settled', 'skipped')),
  payment_id text,
  created_at timestamptz not null default now(),
  primary key (tenant_id, auction_id)
);
create index payment_settlements_pending on payment_settlements (created_at) where state = 'pending';
select svc_enable_tenant_rls('payment_settlements');

create table payment_provider_accounts (
  tenant_id text not null references tenants (id) on delete cascade,
  provider text not null,
  secret_key_encrypted text not null,
  webhook_secret_encrypted text not null,
  secret_key_last4 text not null,
  livemode boolean not null,
  updated_at timestamptz not null,
  primary key (tenant_id, provider)
);
select svc_enable_tenant_rls('payment_provider_accounts');

-- Provider events already applied (Stripe retries and replays them): seen once, applied once.
create table payment_provider_events (
  tenant_id text not null references tenants (id) on delete cascade,
  provider text not null,
  event_id text not null,
  type text not null,
  payment_id text,
  received_at timestamptz not null,
  primary key (tenant_id, provider, event_id)
);
select svc_enable_tenant_rls('payment_provider_events');
