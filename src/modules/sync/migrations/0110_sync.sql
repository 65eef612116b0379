-- Realtime sync: shared Yjs documents of rooms. A document is its compacted snapshot plus the log of the
-- updates appended since; loading merges both. Every update a client sends is appended here before it is
-- relayed, so an edit another client saw survives a crash of the instance.

create table sync_documents (
  tenant_id text not null references tenants (id) on delete cascade,
  room_id text not null,
  doc_name text not null,
  -- Every update compacted so far, merged into one Yjs update (null until the first compaction).
  snapshot bytea,
  compacted_at timestamptz,
  -- When `sync.document.updated` was last emitted: at most one per `syncEventThrottleSeconds`.
  last_event_at timestamptz,
  created_at timestamptz not null default now(),
  primary key (tenant_id, room_id, doc_name)
);
select svc_enable_tenant_rls('sync_documents');

create table sync_updates (
  tenant_id text not null,
  room_id text not null,
  doc_name text not null,
  -- Yjs updates commute: the order only serves compaction, which deletes exactly the ids it merged.
  id bigint generated always as identity,
  data bytea not null,
  created_at timestamptz not null default now(),
  primary key (tenant_id, room_id, doc_name, id),
  foreign key (tenant_id, room_id, doc_name) references sync_documents (tenant_id, room_id, doc_name)
    on delete cascade
);
select svc_enable_tenant_rls('sync_updates');
