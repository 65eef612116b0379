-- Chat changes: every create, edit, deletion and reaction change of a room's messages gets the room's next
-- change number, so a client can resume from the last change it saw and be sent every later one
-- (`seq` numbers messages only, so edits and deletions made while it was away were lost to it).

-- The last change number of each room, taken under the same row lock as `last_seq`: a number is used only
-- by a committed change, numbers have no gaps, and they follow commit order.
alter table chat_room_seq add column last_change bigint not null default 0;

-- The change that created the message: a client that resumes by message seq saw every change up to it.
-- Null only for a message stored by an instance older than this migration during a rolling deploy.
alter table chat_messages add column created_change bigint;

-- One row per change. It names the message and the revision the change gave it; the content is read from
-- the message itself, so an edited or deleted text is never sent again.
create table chat_changes (
  tenant_id text not null,
  room_id text not null,
  change_seq bigint not null,
  message_id text not null,
  revision integer not null,
  kind text not null check (kind in ('created', 'updated', 'deleted')),
  primary key (tenant_id, room_id, change_seq),
  -- The room's deletion takes its changes with it (messages are only ever removed with their room).
  foreign key (tenant_id, room_id) references chat_room_seq (tenant_id, room_id) on delete cascade
);
select svc_enable_tenant_rls('chat_changes');

-- Messages stored before this migration: their creations are the rooms' first changes, in seq order.
insert into chat_changes (tenant_id, room_id, change_seq, message_id, revision, kind)
  select tenant_id, room_id, seq, id, 0, 'created' from chat_messages;
update chat_messages set created_change = seq;
update chat_room_seq set last_change = last_seq;
