-- Delivery ids minted inside the statement that fans an event out (one row per matching endpoint, however
-- many that turns out to be), in the layout of src/core/ids.ts: 10 Crockford base32 characters of the
-- millisecond time, then 16 of 80 random bits. Prefix it: 'whd_' || svc_id_suffix(ms).
create or replace function svc_id_suffix(at_ms bigint) returns text
language plpgsql volatile as $$
declare
  alphabet constant text := '0123456789abcdefghjkmnpqrstvwxyz';
  -- Bytes 0-5 and 9-15 of a version 4 uuid are random (6 and 8 carry the version and variant bits).
  random_bytes constant bytea := uuid_send(gen_random_uuid());
  suffix text := '';
  t bigint := at_ms;
  half bigint;
  chunk text;
begin
  if at_ms < 0 or at_ms >= 281474976710656 then
    raise exception 'svc_id_suffix: % is not a 48-bit millisecond time', at_ms;
  end if;
  for i in 1..10 loop
    suffix := substr(alphabet, (t % 32)::int + 1, 1) || suffix;
    t := t / 32;
  end loop;
  for h in 0..1 loop
    half := 0;
    for i in 0..4 loop
      half := half * 256 + get_byte(random_bytes, h * 9 + i);
    end loop;
    chunk := '';
    for i in 1..8 loop
      chunk := substr(alphabet, (half % 32)::int + 1, 1) || chunk;
      half := half / 32;
    end loop;
    suffix := suffix || chunk;
  end loop;
  return suffix;
end
$$;
