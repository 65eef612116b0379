import { Type } from 'typebox';
import type { RealtimeMembership } from '../../../core/realtime/contributions.ts';
import { defineFrame, RoomField } from '../../../core/realtime/contributions.ts';
import { actorView } from '../../../core/tenancy/actors.ts';
import { ClientId, MessageMetadata, MessageText } from '../schema.ts';
import { isRetry, sendMessage } from '../verbs/send-message.ts';
import { chatFrame } from './changes.ts';
import type { TypingMessage } from './messages.ts';

/**
 * `chat.send`: a message through the same verb as `POST /v1/rooms/:roomId/messages`. There is no separate
 * acknowledgement: the sender sees its message come back as `chat.message` (with its `clientId`) in the
 * room's order, like everyone else; a refusal comes back as `error` with `ref` (or the clientId); a
 * retry with a used clientId gets the first message back.
 */
export const chatSendFrame = defineFrame({
  type: 'chat.send',
  fields: {
    room: RoomField,
    text: MessageText,
    clientId: Type.Optional(ClientId),
    metadata: Type.Optional(MessageMetadata),
  },
  access: { module: 'chat', scope: 'chat:write' },
  async handle(host, connection, frame) {
    host.membershipIn(connection, frame.room);
    const message = await sendMessage(host.context(connection), {
      roomId: frame.room,
      text: frame.text,
      ...(frame.metadata === undefined ? {} : { metadata: frame.metadata }),
      ...(frame.clientId === undefined ? {} : { clientId: frame.clientId }),
    });
    // A retry (the clientId was used before) makes no change for the room to relay: the sender alone gets
    // the first message back, without a changeSeq, as it is now.
    if (isRetry(message)) {
      connection.send(
        chatFrame(frame.room, { op: message.deletedAt === null ? 'created' : 'deleted', message }),
      );
    }
  },
  errorRef: (frame) => frame.clientId,
});

/**
 * `typing`: tells the room's other connections that this actor is typing; repeats faster than the
 * interval are dropped.
 */
export function typingFrame(intervalMs: number) {
  const lastTypingAt = new WeakMap<RealtimeMembership, number>();
  return defineFrame({
    type: 'typing',
    fields: { room: RoomField },
    access: { module: 'chat', scope: 'chat:write' },
    async handle(host, connection, frame) {
      const membership = host.membershipIn(connection, frame.room);
      const now = host.clock.now();
      if (now - (lastTypingAt.get(membership) ?? Number.NEGATIVE_INFINITY) < intervalMs) return;
      lastTypingAt.set(membership, now);
      const { actor, tenantId } = connection.session;
      const message: TypingMessage = {
        k: 'typing',
        actor: actorView(actor),
        from: connection.id,
      };
      await host.publish(tenantId, frame.room, message);
    },
  });
}
