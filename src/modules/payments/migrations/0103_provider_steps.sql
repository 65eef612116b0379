-- Provider calls run outside the payment's transaction. The step a call makes is recorded first (its kind,
-- its arguments, the idempotency key the provider gets, and a lease), the provider is called with no
-- transaction open, and the outcome is applied by a second transaction guarded on the step's key.
-- A step whose answer never came (`unknown`) or whose lease ran out (its instance died) is resumed with the
-- same provider idempotency key, so the provider does it once.
alter table payments add column step text check (step in ('create', 'confirm', 'capture', 'cancel'));
alter table payments add column step_key text;
alter table payments add column step_args jsonb;
alter table payments add column step_state text check (step_state in ('calling', 'unknown'));
alter table payments add column step_until timestamptz;
alter table payments add column step_seq integer not null default 0;
create index payments_open_step on payments (step_until) where step is not null;

-- A refund is recorded (pending, its amount counted) before the provider is asked; `call_until` is the
-- lease of that call, cleared when its answer is applied.
alter table payment_refunds add column call_until timestamptz;
create index payment_refunds_open_call on payment_refunds (call_until) where call_until is not null;
