-- Raw analytics events, append-only, one partition per UTC month (created on demand by
-- analytics_ensure_partitions, dropped whole by retention). No foreign key to tenants: a partitioned
-- fact table checked row by row would cost every insert; a tenant's rows go with its retention.
create table analytics_events (
  tenant_id text not null,
  event text not null,
  ts timestamptz not null,
  received_at timestamptz not null,
  message_id text not null,
  actor_id text,
  anonymous_id text,
  -- Who the event counts for in uniques and funnels: the actor, else '~' and the anonymous id.
  actor_key text not null,
  room_id text,
  properties jsonb not null default '{}'::jsonb,
  context jsonb,
  clamped boolean not null default false
) partition by range (ts);
create index analytics_events_scan on analytics_events (tenant_id, event, ts);
select svc_enable_tenant_rls('analytics_events');

-- Events per tenant, event name and UTC hour, kept up to date by every ingestion in the statement that
-- inserts the events; counts over long ranges read these rows (at most 24 a day per event), not the events.
create table analytics_hourly (
  tenant_id text not null,
  event text not null,
  hour timestamptz not null,
  events bigint not null,
  primary key (tenant_id, event, hour)
);
select svc_enable_tenant_rls('analytics_hourly');

-- messageIds seen per tenant (dedupe), kept 8 days by the retention rule analytics_message_ids.
create table analytics_message_ids (
  tenant_id text not null,
  message_id text not null,
  received_at timestamptz not null,
  primary key (tenant_id, message_id)
);
create index analytics_message_ids_received on analytics_message_ids (received_at);
select svc_enable_tenant_rls('analytics_message_ids');

-- Creates the monthly partitions of analytics_events for every month in [from_month, to_month] that has
-- none, each with row-level security like its parent. Serialised by an advisory lock, so instances that
-- need the same month at once do not collide.
create or replace function analytics_ensure_partitions(from_month date, to_month date)
returns int language plpgsql as $fn$
declare
  m date := date_trunc('month', from_month)::date;
  last date := date_trunc('month', to_month)::date;
  part text;
  created int := 0;
begin
  perform pg_advisory_xact_lock(hashtext('analytics_ensure_partitions'));
  while m <= last loop
    part := 'analytics_events_' || to_char(m, 'YYYYMM');
    if to_regclass(part) is null then
      execute format(
        'create table %I partition of analytics_events for values from (%L) to (%L)',
        part, (m::timestamp at time zone 'UTC'), ((m + interval '1 month')::timestamp at time zone 'UTC'));
      perform svc_enable_tenant_rls(part::regclass);
      created := created + 1;
    end if;
    m := (m + interval '1 month')::date;
  end loop;
  return created;
end
$fn$;
