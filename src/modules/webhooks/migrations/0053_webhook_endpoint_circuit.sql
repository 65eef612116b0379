-- The circuit breaker of an endpoint (see docs/webhooks.md, "Fair delivery"): timeouts in a row, and while
-- the circuit is open or half-open, until when no attempt is made (after it, one attempt at a time probes).
-- An answer of any status closes it. Deliveries are not touched: they wait, pending, and go once it closes.
alter table webhook_endpoints
  add column consecutive_timeouts integer not null default 0 check (consecutive_timeouts >= 0),
  add column circuit_trips integer not null default 0 check (circuit_trips >= 0),
  add column circuit_opened_at timestamptz,
  add column circuit_open_until timestamptz,
  add constraint webhook_endpoints_circuit check ((circuit_opened_at is null) = (circuit_open_until is null));
-- The worker's next wake-up also looks for the earliest circuit to half-open.
create index webhook_endpoints_circuit_open on webhook_endpoints (circuit_open_until)
  where circuit_open_until is not null;
