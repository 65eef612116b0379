import { defineIsolation } from '../../../../test/support/isolation-suite.ts';
import { oneRoom } from '../../../../test/support/security-suite.ts';

const reactions = (r: { roomId: string; messageId: string }, actor: string) =>
  `/v1/rooms/${r.roomId}/messages/${r.messageId}/reactions/${encodeURIComponent('👍')}?actor=${actor}`;

/** Tenant B's message (its text the marker) in B's room. */
export const isolation = defineIsolation({
  module: 'chat',
  async setup({ t, b, inB, marker }) {
    const { roomId } = await oneRoom(t, b);
    const message = await inB(`/v1/rooms/${roomId}/messages`, {
      text: marker,
      actor: { type: 'agent', id: 'b:author', identityProvider: 'test' },
    });
    return { roomId, messageId: message.json<{ id: string }>().id };
  },
  cases: {
    apiKey: {
      'POST /v1/rooms/:roomId/messages': (r) => ({
        method: 'POST',
        url: `/v1/rooms/${r.roomId}/messages`,
        payload: { text: 'intrusion', actor: { type: 'agent', id: 'a:intruder', identityProvider: 'test' } },
      }),
      'GET /v1/rooms/:roomId/messages': (r) => ({ method: 'GET', url: `/v1/rooms/${r.roomId}/messages` }),
      'PATCH /v1/rooms/:roomId/messages/:messageId': (r) => ({
        method: 'PATCH',
        url: `/v1/rooms/${r.roomId}/messages/${r.messageId}`,
        payload: { text: 'edited by A' },
      }),
      'DELETE /v1/rooms/:roomId/messages/:messageId': (r) => ({
        method: 'DELETE',
        url: `/v1/rooms/${r.roomId}/messages/${r.messageId}`,
      }),
      'POST /v1/rooms/:roomId/messages/:messageId/reactions/:emoji': (r) => ({
        method: 'POST',
        url: reactions(r, 'a:intruder'),
      }),
      'DELETE /v1/rooms/:roomId/messages/:messageId/reactions/:emoji': (r) => ({
        method: 'DELETE',
        url: reactions(r, 'b:author'),
      }),
    },
  },
});
