-- What an endpoint is for, in the tenant's words (shown in the console's endpoint list); '' when not given.
alter table webhook_endpoints
  add column description text not null default '' check (length(description) <= 500);
