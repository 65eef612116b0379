-- Stripe's refund.updated names the refund by Stripe's id.
create index payment_refunds_provider_ref on payment_refunds (tenant_id, provider_ref);
