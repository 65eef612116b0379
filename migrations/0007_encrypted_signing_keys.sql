-- The private half of each session signing key is stored encrypted (SVC_ENCRYPTION_KEY, see
-- docs/configuration.md): `private_jwk_encrypted` holds `v1:<key id>:...`. Keys written before this change
-- still have their plain `private_jwk`; every start encrypts those into `private_jwk_encrypted` and clears
-- `private_jwk` (src/core/secrets/stored-secrets.ts), so nothing is lost and nothing plain stays behind.
alter table signing_keys add column private_jwk_encrypted text;
alter table signing_keys alter column private_jwk drop not null;
alter table signing_keys add constraint signing_keys_one_private_form
  check ((private_jwk is null) <> (private_jwk_encrypted is null));
grant update (private_jwk, private_jwk_encrypted) on signing_keys to svc_system;
