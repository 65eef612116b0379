-- Every session token minted, so that revocation by id refuses ids this tenant never issued (and a
-- revocation row exists at most once per token). Rows go once the token has expired (retention).
create table issued_sessions (
  tenant_id text not null references tenants (id) on delete cascade,
  id text not null,
  actor_id text not null,
  expires_at timestamptz not null,
  primary key (tenant_id, id)
);
create index issued_sessions_expiry on issued_sessions (expires_at);
select svc_enable_tenant_rls('issued_sessions');

-- One row per revoked session token and per actor: revoking again updates the row (and gives it a new
-- sequence number, so every instance's poll sees it), instead of adding rows without bound.
delete from credential_revocations a using credential_revocations b
 where a.kind = b.kind and a.tenant_id = b.tenant_id and a.subject = b.subject and a.seq < b.seq;
create unique index credential_revocations_once on credential_revocations (tenant_id, kind, subject);
