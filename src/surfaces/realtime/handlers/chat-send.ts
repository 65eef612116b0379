import type { Static } from 'typebox';
import { sendMessage } from '../../../modules/chat/verbs/send-message.ts';
import type { Connection } from '../connection.ts';
import type { Gateway } from '../gateway.ts';
import type { ChatSendFrame } from '../protocol.ts';
import { membershipIn, notMintedFor } from './room-checks.ts';

/**
 * Sends a chat message through the same verb as `POST /v1/rooms/:roomId/messages`. There is no separate
 * acknowledgement: the sender sees its message come back as `chat.message` (with its `clientId`) in the
 * room's order, like everyone else; a refusal comes back as `error` with `ref` (or the clientId).
 */
export async function handleChatSend(
  gateway: Gateway,
  connection: Connection,
  frame: Static<typeof ChatSendFrame>,
): Promise<void> {
  if (!connection.can.chatWrite) throw notMintedFor('chat');
  membershipIn(connection, frame.room);
  const ctx = gateway.context(connection);
  await ctx.enablement.assertEnabled(ctx.tenantId, ['chat']);
  await sendMessage(ctx, {
    roomId: frame.room,
    text: frame.text,
    ...(frame.metadata === undefined ? {} : { metadata: frame.metadata }),
    ...(frame.clientId === undefined ? {} : { clientId: frame.clientId }),
  });
}
