-- Endpoint secrets are stored encrypted (SVC_ENCRYPTION_KEY, see docs/configuration.md): `secret_encrypted`
-- and `previous_secret_encrypted` hold `v1:<key id>:...`. Rows written before this change still have their
-- plain `secret` / `previous_secret`; every start encrypts those and clears the plain columns (the module
-- declares them in its manifest's `encryptedColumns`), and until then the worker reads either form.
alter table webhook_endpoints add column secret_encrypted text;
alter table webhook_endpoints add column previous_secret_encrypted text;
alter table webhook_endpoints alter column secret drop not null;

-- The old rule tied previous_secret to its expiry; it now holds for either form of the previous secret.
do $$
declare
  name text;
begin
  for name in
    select conname from pg_constraint
     where conrelid = 'webhook_endpoints'::regclass and contype = 'c'
       and pg_get_constraintdef(oid) like '%previous_secret_expires_at%'
  loop
    execute format('alter table webhook_endpoints drop constraint %I', name);
  end loop;
end $$;

alter table webhook_endpoints
  add constraint webhook_endpoints_one_secret check ((secret is null) <> (secret_encrypted is null)),
  add constraint webhook_endpoints_previous_secret check (
    (previous_secret is null or previous_secret_encrypted is null)
    and ((previous_secret is null and previous_secret_encrypted is null) = (previous_secret_expires_at is null))
  );
