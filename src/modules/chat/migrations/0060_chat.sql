-- Chat: messages in rooms, numbered per room in commit order, with reactions.

-- The last message number of each room. Sending locks this row (update ... returning), so concurrent
-- senders to one room take numbers one at a time and a number is only ever used by a committed message:
-- a room's numbers have no gaps, which is what lets a client resume from the last one it saw.
create table chat_room_seq (
  tenant_id text not null,
  room_id text not null,
  last_seq bigint not null default 0,
  primary key (tenant_id, room_id),
  -- The room must exist; its deletion takes its chat with it.
  foreign key (tenant_id, room_id) references rooms (tenant_id, id) on delete cascade
);
select svc_enable_tenant_rls('chat_room_seq');

create table chat_messages (
  tenant_id text not null,
  id text not null,
  room_id text not null,
  seq bigint not null,
  author_actor_id uuid not null references actors (id) on delete cascade,
  text text not null,
  metadata jsonb not null default '{}'::jsonb,
  -- The sender's own id for the message: a retry with the same one returns the first message.
  client_id text,
  -- Bumped by every edit, deletion and reaction change, so clients keep the newest copy they were sent.
  revision integer not null default 0,
  created_at timestamptz not null default now(),
  edited_at timestamptz,
  deleted_at timestamptz,
  primary key (tenant_id, id),
  foreign key (tenant_id, room_id) references chat_room_seq (tenant_id, room_id) on delete cascade
);
create unique index chat_messages_room_seq on chat_messages (tenant_id, room_id, seq);
create unique index chat_messages_client_id on chat_messages (tenant_id, room_id, author_actor_id, client_id)
  where client_id is not null;
select svc_enable_tenant_rls('chat_messages');

create table chat_reactions (
  tenant_id text not null,
  message_id text not null,
  emoji text not null,
  actor_id uuid not null references actors (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (tenant_id, message_id, emoji, actor_id),
  foreign key (tenant_id, message_id) references chat_messages (tenant_id, id) on delete cascade
);
select svc_enable_tenant_rls('chat_reactions');
