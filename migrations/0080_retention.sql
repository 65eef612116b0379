-- Retention (core's rules in src/core/retention/core-rules.ts): the retention worker deletes old rows of
-- these tables across tenants, oldest first in bounded batches, so each needs an index on its age column.

-- Revocation rows written before every kind carried an expiry: a revoked session token lives at most the
-- longest session lifetime (SVC_SESSION_TTL_SECONDS is at most a day), an API key's cached verification a minute.
update credential_revocations set expires_at = revoked_at + interval '1 day 1 minute' where expires_at is null;
create index credential_revocations_expiry on credential_revocations (expires_at);

create index events_created on events (created_at);
create index mcp_confirmations_expires on mcp_confirmations (expires_at);
