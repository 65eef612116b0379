-- When each change was made, so changes can be deleted once older than the chat_changes retention (see
-- src/modules/chat/retention.ts). Changes made before this migration count from the time it ran.
alter table chat_changes add column created_at timestamptz not null default now();
create index chat_changes_created on chat_changes (created_at);
