import { memberView, presenceRecord } from '../../modules/presence/member.ts';
import type { Gateway } from './gateway.ts';

/**
 * This instance was taken for dead (an event-loop stall longer than the presence expiry) and its members
 * were removed: join its live connections again and announce those that became members anew.
 */
export async function rejoinPresence(gateway: Gateway): Promise<void> {
  const { presence } = gateway.backplane;
  for (const connection of gateway.connections) {
    const { actor, tenantId } = connection.session;
    for (const membership of connection.memberships.values()) {
      const state = membership.presenceState;
      if (state === undefined) continue;
      try {
        const joined = await presence.join(
          membership.key,
          actor.id,
          connection.id,
          presenceRecord(actor, state),
        );
        if (joined.joined) {
          await gateway.publish(tenantId, membership.roomId, {
            k: 'presence',
            op: 'join',
            member: memberView(joined.member),
          });
        }
      } catch (error) {
        gateway.report(error, 'realtime presence rejoin');
      }
    }
  }
}
