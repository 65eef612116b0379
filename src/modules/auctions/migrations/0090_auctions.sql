-- Auctions: live auctions in rooms, their bids (append-only), refused bids, and the numbered log of every
-- accepted bid and state change that realtime clients resume from.

create table auctions (
  tenant_id text not null references tenants (id) on delete cascade,
  id text not null,
  -- Insertion order within the service: stable keyset pagination of the list.
  list_seq bigint generated always as identity,
  room_id text not null,
  title text not null,
  description text not null default '',
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  starting_price bigint not null check (starting_price >= 0),
  reserve_price bigint check (reserve_price >= 0),
  buy_now_price bigint check (buy_now_price > 0),
  increments jsonb,
  starts_at timestamptz,
  duration_seconds integer not null check (duration_seconds > 0),
  soft_close jsonb,
  sudden_death boolean not null default false,
  published boolean not null default false,
  metadata jsonb not null default '{}'::jsonb,
  status text not null default 'draft'
    check (status in ('draft', 'scheduled', 'live', 'ended', 'cancelled')),
  current_price bigint,
  leader_bid_id text,
  -- The leader's maximum: never shown to anyone but the leader.
  leader_max bigint,
  leader jsonb,
  bid_count integer not null default 0,
  started_at timestamptz,
  ends_at timestamptz,
  ended_at timestamptz,
  extensions integer not null default 0,
  -- Every accepted bid and state change takes the next number, with no gaps.
  seq bigint not null default 0,
  outcome text check (outcome in ('sold', 'unsold', 'bought_now')),
  winner jsonb,
  final_price bigint,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, id)
);
create index auctions_tenant_list on auctions (tenant_id, list_seq desc);
create index auctions_room on auctions (tenant_id, room_id, status);
-- The scheduler's look-ups across tenants: what is due to start or end.
create index auctions_due_start on auctions (starts_at) where status = 'scheduled';
create index auctions_due_end on auctions (ends_at) where status = 'live';
select svc_enable_tenant_rls('auctions');

create table auction_bids (
  tenant_id text not null,
  id text not null,
  auction_id text not null,
  -- The auction's seq this bid took.
  seq bigint not null,
  kind text not null check (kind in ('bid', 'buy_now')),
  bidder_actor_id uuid not null references actors (id),
  bidder jsonb not null,
  amount bigint not null,
  max_amount bigint not null,
  price_after bigint not null,
  leading_after boolean not null,
  client_bid_id text,
  created_at timestamptz not null,
  primary key (tenant_id, id),
  foreign key (tenant_id, auction_id) references auctions (tenant_id, id) on delete cascade,
  unique (tenant_id, auction_id, seq)
);
create index auction_bids_newest on auction_bids (tenant_id, auction_id, seq desc);
create unique index auction_bids_client on auction_bids (tenant_id, auction_id, bidder_actor_id, client_bid_id)
  where client_bid_id is not null;
select svc_enable_tenant_rls('auction_bids');

create table auction_rejections (
  tenant_id text not null,
  id bigint generated always as identity,
  auction_id text not null,
  bidder_actor_id uuid,
  amount bigint,
  max_amount bigint,
  code text not null,
  message text not null,
  current_price bigint,
  client_bid_id text,
  created_at timestamptz not null,
  primary key (tenant_id, id),
  foreign key (tenant_id, auction_id) references auctions (tenant_id, id) on delete cascade
);
create index auction_rejections_auction on auction_rejections (tenant_id, auction_id, id desc);
create index auction_rejections_created on auction_rejections (created_at);
select svc_enable_tenant_rls('auction_rejections');

-- What happened at each seq of an auction, as room members receive it: a reconnecting client reads
-- what it missed from here.
create table auction_log (
  tenant_id text not null,
  auction_id text not null,
  seq bigint not null,
  room_id text not null,
  frame jsonb not null,
  created_at timestamptz not null default now(),
  primary key (tenant_id, auction_id, seq),
  foreign key (tenant_id, auction_id) references auctions (tenant_id, id) on delete cascade
);
select svc_enable_tenant_rls('auction_log');
