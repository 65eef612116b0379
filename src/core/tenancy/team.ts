import type { TenantContext } from '../context.ts';
import type { Queryable } from '../db/database.ts';
import { PG_ERROR, pgErrorCode } from '../db/database.ts';
import { tenantTx } from '../db/tenant-tx.ts';
import { Conflict, Forbidden, NotFound } from '../http/errors.ts';
import { newId } from '../ids.ts';
import type { Role } from './roles.ts';

export interface TeamEntry {
  status: 'active' | 'pending';
  userId: string | null;
  invitationId: string | null;
  email: string | null;
  name: string | null;
  role: Role;
  createdAt: string;
}

export async function listTeam(ctx: TenantContext): Promise<TeamEntry[]> {
  return tenantTx(ctx.db, { tenantId: ctx.tenantId }, async (tx) => {
    const members = await tx.query<{
      user_id: string;
      email: string | null;
      name: string | null;
      role: Role;
      created_at: Date;
    }>(
      `select m.user_id, u.email, u.name, m.role, m.created_at
         from memberships m join users u on u.id = m.user_id order by m.created_at, m.user_id`,
    );
    const invites = await tx.query<{ id: string; email: string; role: Role; created_at: Date }>(
      'select id, email, role, created_at from invitations where accepted_at is null order by created_at, id',
    );
    return [
      ...members.rows.map((m) => ({
        status: 'active' as const,
        userId: m.user_id,
        invitationId: null,
        email: m.email,
        name: m.name,
        role: m.role,
        createdAt: m.created_at.toISOString(),
      })),
      ...invites.rows.map((i) => ({
        status: 'pending' as const,
        userId: null,
        invitationId: i.id,
        email: i.email,
        name: null,
        role: i.role,
        createdAt: i.created_at.toISOString(),
      })),
    ];
  });
}

/** Only an owner may hand out or take away the owner role. */
function assertMayGrant(actorRole: Role, role: Role): void {
  if (role === 'owner' && actorRole !== 'owner')
    throw new Forbidden('only an owner may grant the owner role');
}

export async function inviteMember(
  ctx: TenantContext,
  input: { email: string; role: Role; invitedBy: string; actorRole: Role },
): Promise<TeamEntry> {
  assertMayGrant(input.actorRole, input.role);
  const email = input.email.trim().toLowerCase();
  const { tenantId } = ctx;
  return tenantTx(ctx.db, { tenantId }, async (tx) => {
    const existing = await tx.query(
      'select 1 from memberships m join users u on u.id = m.user_id where lower(u.email) = $1',
      [email],
    );
    if (existing.rows.length > 0) throw new Conflict(`${email} is already a member`);
    try {
      const { rows } = await tx.query<{ id: string; created_at: Date }>(
        'insert into invitations (id, tenant_id, email, role, invited_by) values ($1, $2, $3, $4, $5) returning id, created_at',
        [newId('invitation', ctx.clock.now()), tenantId, email, input.role, input.invitedBy],
      );
      const row = rows[0];
      if (row === undefined) throw new Error('invitation insert returned nothing');
      return {
        status: 'pending',
        userId: null,
        invitationId: row.id,
        email,
        name: null,
        role: input.role,
        createdAt: row.created_at.toISOString(),
      };
    } catch (error) {
      if (pgErrorCode(error) === PG_ERROR.uniqueViolation) throw new Conflict(`${email} is already invited`);
      throw error;
    }
  });
}

/** Locks the owner rows so two concurrent demotions cannot both pass the last-owner check. */
async function ownerCount(tx: Queryable): Promise<number> {
  const { rows } = await tx.query<{ user_id: string }>(
    `select user_id from memberships where role = 'owner' for update`,
  );
  return rows.length;
}

async function currentRole(tx: Queryable, userId: string): Promise<Role> {
  const { rows } = await tx.query<{ role: Role }>(
    'select role from memberships where user_id = $1 for update',
    [userId],
  );
  const role = rows[0]?.role;
  if (role === undefined) throw new NotFound('member', userId);
  return role;
}

export async function changeMemberRole(
  ctx: TenantContext,
  input: { userId: string; role: Role; actorRole: Role },
): Promise<void> {
  await tenantTx(ctx.db, { tenantId: ctx.tenantId }, async (tx) => {
    const owners = await ownerCount(tx);
    const role = await currentRole(tx, input.userId);
    if (role === 'owner' || input.role === 'owner') assertMayGrant(input.actorRole, 'owner');
    if (role === 'owner' && input.role !== 'owner' && owners <= 1) {
      throw new Conflict('the last owner cannot be demoted; make another member owner first');
    }
    await tx.query('update memberships set role = $2 where user_id = $1', [input.userId, input.role]);
  });
}

export async function removeMember(
  ctx: TenantContext,
  input: { userId: string; actorRole: Role },
): Promise<void> {
  await tenantTx(ctx.db, { tenantId: ctx.tenantId }, async (tx) => {
    const owners = await ownerCount(tx);
    const role = await currentRole(tx, input.userId);
    if (role === 'owner') {
      assertMayGrant(input.actorRole, 'owner');
      if (owners <= 1)
        throw new Conflict('the last owner cannot be removed; make another member owner first');
    }
    await tx.query('delete from memberships where user_id = $1', [input.userId]);
  });
}

export async function cancelInvitation(
  ctx: TenantContext,
  { invitationId }: { invitationId: string },
): Promise<void> {
  const { rowCount } = await tenantTx(ctx.db, { tenantId: ctx.tenantId }, (tx) =>
    tx.query('delete from invitations where id = $1 and accepted_at is null', [invitationId]),
  );
  if (rowCount === 0) throw new NotFound('invitation', invitationId);
}
