import { roomMessageOf } from './event-relay.ts';
import type { Gateway } from './gateway.ts';
import { rejoinPresence } from './presence-relay.ts';
import { toJson } from './room-messages.ts';

/**
 * What flows into the rooms besides client frames: committed events of this instance, members of dead
 * instances that expired, this instance's own eviction, and backplane outages. Returns the removals.
 */
export function startRelays(gateway: Gateway): (() => void)[] {
  const { pubsub, presence } = gateway.backplane;
  return [
    gateway.services.events.bus.subscribe((event) => {
      const relayed = roomMessageOf(event);
      if (relayed === undefined) return;
      gateway
        .publish(event.tenantId, relayed.roomId, relayed.message)
        .catch((error: unknown) => gateway.report(error, 'realtime relay'));
    }),
    presence.onExpiredLeave((leave) =>
      // A room's presence key is its channel name.
      pubsub.publish(leave.room, toJson({ k: 'presence', op: 'leave', actorId: leave.actor })),
    ),
    presence.onEvicted(() => rejoinPresence(gateway)),
    pubsub.onDeliveryGap(() => {
      for (const room of gateway.rooms.all()) room.catchUp();
    }),
  ];
}
