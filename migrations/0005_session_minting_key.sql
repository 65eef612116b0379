-- The API key that minted each session token: revoking the key revokes the sessions it minted (the token
-- carries the key's id as well; this column lets a revocation outlive every token the key minted).
alter table issued_sessions add column api_key_id text;
create index issued_sessions_api_key on issued_sessions (tenant_id, api_key_id, expires_at)
  where api_key_id is not null;
