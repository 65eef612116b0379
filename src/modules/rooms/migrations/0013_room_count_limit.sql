-- The tenant's maximum as of its last creation, beside its count: a creation that would take the count past
-- it breaks the check, so a creation is one statement that fails whole, with no transaction to roll back.
-- Counts only ever go down otherwise (deletions), so every stored row keeps n <= max_n.
alter table room_counts add column max_n integer not null default 2147483647;
alter table room_counts add constraint room_counts_within_max check (n <= max_n);
