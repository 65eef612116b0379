import type { Static } from 'typebox';
import type { Connection } from '../connection.ts';
import type { Gateway } from '../gateway.ts';
import type { TypingFrame } from '../protocol.ts';
import { membershipIn, notMintedFor } from './room-checks.ts';

/** Tells the room's other connections that this actor is typing; repeats faster than the interval are dropped. */
export async function handleTyping(
  gateway: Gateway,
  connection: Connection,
  frame: Static<typeof TypingFrame>,
): Promise<void> {
  if (!connection.can.chatWrite) throw notMintedFor('chat');
  const membership = membershipIn(connection, frame.room);
  const now = gateway.clock.now();
  if (now - membership.lastTypingAt < gateway.limits.typingIntervalMs) return;
  membership.lastTypingAt = now;
  const { actor, tenantId } = connection.session;
  await gateway.publish(tenantId, frame.room, {
    k: 'typing',
    actor: { id: actor.id, type: actor.type, externalId: actor.externalId },
    from: connection.id,
  });
}
