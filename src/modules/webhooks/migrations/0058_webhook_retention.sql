-- Finished deliveries (delivered or dead-lettered) are deleted with their attempts once their last attempt
-- is older than the webhook_deliveries retention (see src/modules/webhooks/retention.ts).
create index webhook_deliveries_finished on webhook_deliveries (last_attempt_at) where state <> 'pending';
