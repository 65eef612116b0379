import type { HostedIdentity } from '../auth/hosted-jwt.ts';
import type { SystemContext } from '../context.ts';
import type { Database, Queryable } from '../db/database.ts';
import { systemRead, systemTx } from '../db/tenant-tx.ts';
import { newId } from '../ids.ts';

export interface UserRecord {
  id: string;
  identityProvider: string;
  providerUserId: string;
  email: string | null;
  name: string | null;
  createdAt: string;
}

interface UserRow {
  id: string;
  identity_provider: string;
  provider_user_id: string;
  email: string | null;
  name: string | null;
  created_at: Date;
}

export function toUser(row: UserRow): UserRecord {
  return {
    id: row.id,
    identityProvider: row.identity_provider,
    providerUserId: row.provider_user_id,
    email: row.email,
    name: row.name,
    createdAt: row.created_at.toISOString(),
  };
}

/**
 * Pending invitations for a verified email become memberships. Unverified emails accept nothing:
 * otherwise anyone could claim an invitation by typing the address into their identity provider.
 */
async function acceptInvitations(tx: Queryable, userId: string, email: string): Promise<void> {
  await tx.query(
    `with accepted as (
       update invitations set accepted_at = now(), accepted_by = $1
        where lower(email) = lower($2) and accepted_at is null
        returning tenant_id, role)
     insert into memberships (tenant_id, user_id, role)
     select tenant_id, $1, role from accepted
     on conflict (tenant_id, user_id) do nothing`,
    [userId, email],
  );
}

/** The provider's user id maps to one internal user, created on first sight. */
export async function resolveHostedUser(
  { db, clock }: SystemContext,
  identity: HostedIdentity,
): Promise<UserRecord> {
  return systemTx(db, async (tx) => {
    // Written only when the user is new or its email or name changed: a console request of a known user
    // with the same claims reads its row and writes nothing.
    const { rows } = await tx.query<UserRow>(
      `with upserted as (
         insert into users (id, identity_provider, provider_user_id, email, name)
         values ($1, $2, $3, $4, $5)
         on conflict (identity_provider, provider_user_id) do update
           set email = coalesce(excluded.email, users.email), name = coalesce(excluded.name, users.name)
           where users.email is distinct from coalesce(excluded.email, users.email)
              or users.name is distinct from coalesce(excluded.name, users.name)
         returning id, identity_provider, provider_user_id, email, name, created_at)
       select * from upserted
       union all
       select id, identity_provider, provider_user_id, email, name, created_at from users
        where identity_provider = $2 and provider_user_id = $3 and not exists (select 1 from upserted)`,
      [
        newId('user', clock.now()),
        identity.provider,
        identity.subject,
        identity.email ?? null,
        identity.name ?? null,
      ],
    );
    const row = rows[0];
    if (row === undefined) throw new Error('user upsert returned nothing');
    if (identity.email !== undefined && identity.emailVerified)
      await acceptInvitations(tx, row.id, identity.email);
    return toUser(row);
  });
}

export async function getUser(db: Database, userId: string): Promise<UserRecord | undefined> {
  const { rows } = await systemRead<UserRow>(
    db,
    'select id, identity_provider, provider_user_id, email, name, created_at from users where id = $1',
    [userId],
  );
  return rows[0] === undefined ? undefined : toUser(rows[0]);
}
