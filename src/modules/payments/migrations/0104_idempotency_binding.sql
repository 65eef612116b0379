-- A payment or refund made under an Idempotency-Key carries the key (as stored by the platform's
-- idempotency layer, per tenant) and the request's fingerprint. The key is unique per tenant and kind, and
-- a keyed create looks for it in the transaction that inserts, so a retry whose first attempt made the
-- row and then lost its answer (the instance died, a 5xx) finds that row instead of making a second one,
-- whenever it comes.
alter table payments add column idempotency_key text;
alter table payments add column idempotency_fingerprint text;
create unique index payments_idempotency_key on payments (tenant_id, idempotency_key)
  where idempotency_key is not null;

alter table payment_refunds add column idempotency_key text;
alter table payment_refunds add column idempotency_fingerprint text;
create unique index payment_refunds_idempotency_key on payment_refunds (tenant_id, idempotency_key)
  where idempotency_key is not null;
