import type { TenantEvent } from '../../core/events/types.ts';
import type { RoomMessage } from '../../core/realtime/contributions.ts';
import { type MessageTrace, messageTrace } from './fan-out-span.ts';
import type { RoomEventView } from './frames.ts';
import type { Gateway } from './gateway.ts';

const ROOM_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** The gateway's own room message: a tenant event about the room, as an `event` frame. */
interface EventMessage extends RoomMessage {
  k: 'event';
  event: RoomEventView;
  /** While tracing is on: the event's trace, for the fan-out span on each instance. */
  trace?: MessageTrace;
}

function eventMessage(event: TenantEvent): EventMessage {
  return {
    k: 'event',
    event: { id: event.id, type: event.type, data: event.data, createdAt: event.createdAt },
    ...messageTrace(event),
  };
}

/**
 * What flows into the rooms besides client frames: committed events of this instance that concern a room
 * (`data.roomId`) — as their module's own message when it relays them (chat changes), else as `event`
 * frames — catch-up after backplane outages, and each module's background relays. Each event is committed
 * and published on one instance, so it reaches the room's channel exactly once. Returns the removals.
 */
export function startRelays(gateway: Gateway): (() => void)[] {
  const { registry } = gateway.services;
  const relays = new Map(
    gateway.modules.flatMap(({ module, hooks }) =>
      hooks.realtime?.relay === undefined ? [] : [[module, hooks.realtime.relay] as const],
    ),
  );
  return [
    gateway.services.events.bus.subscribe((event, origin) => {
      // The instance that committed it relays it: once, onto the room's channel that every instance hears.
      if (origin !== 'here') return;
      const roomId = event.data.roomId;
      if (typeof roomId !== 'string' || !ROOM_ID.test(roomId)) return;
      const module = registry.moduleOfEvent(event.type);
      const relay = module === undefined ? undefined : relays.get(module);
      const message = relay?.(event, roomId) ?? eventMessage(event);
      gateway
        .publish(event.tenantId, roomId, message)
        .catch((error: unknown) => gateway.report(error, 'realtime relay'));
    }),
    gateway.pubsub.onDeliveryGap(() => {
      for (const room of gateway.rooms.all()) room.catchUp();
    }),
    ...gateway.modules.flatMap(({ hooks }) => hooks.realtime?.start?.(gateway) ?? []),
  ];
}
