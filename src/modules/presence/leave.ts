import type { ActorRef } from '../../core/auth/principal.ts';
import { tenantRead } from '../../core/db/tenant-tx.ts';
import type { RealtimeHost } from '../../core/realtime/contributions.ts';
import type { ExpiredLeave } from '../../core/realtime/index.ts';
import { ACTOR_ROW } from '../../core/tenancy/acting-actor.ts';
import { type Actor, actorView } from '../../core/tenancy/actors.ts';

/** The tenant of a room's presence key, `t:<tenantId>:room:<roomId>`. */
function tenantOfRoom(room: string): string | undefined {
  return /^t:([A-Za-z0-9_-]+):room:/.exec(room)?.[1];
}

/**
 * The Actor object of a member the presence store knows only by its internal id: one that expired with
 * its instance, or a `presence.leave` an instance older than issue 29 published. Read from the actors
 * table, so `presence.leave` names the actor as every frame does.
 */
export async function actorOfMember(
  host: RealtimeHost,
  tenantId: string,
  internalId: string,
): Promise<Actor | undefined> {
  const { rows } = await tenantRead<ActorRef>(
    host.systemContext(tenantId).db,
    { tenantId },
    `select ${ACTOR_ROW} from actors where id::text = $1`,
    [internalId],
  );
  const row = rows[0];
  return row === undefined ? undefined : actorView(row);
}

/** What presence publishes on a room's channel when an expired member left. */
export async function expiredLeaveMessage(
  host: RealtimeHost,
  leave: ExpiredLeave,
): Promise<{ k: 'presence'; op: 'leave'; actor: Actor } | undefined> {
  const tenantId = tenantOfRoom(leave.room);
  const actor = tenantId === undefined ? undefined : await actorOfMember(host, tenantId, leave.actor);
  return actor === undefined ? undefined : { k: 'presence', op: 'leave', actor };
}
