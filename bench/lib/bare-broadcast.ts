import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';

/**
 * The baseline of `bench:fanout`: a bare `ws` server speaking just enough of the protocol (join ->
 * joined; chat.send -> one chat.message frame to every socket). No auth, no database, no backplane,
 * no limits: the most a single Node process can push through `ws`.
 */
export async function startBareBroadcast(): Promise<{ url: string; close(): Promise<void> }> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  let seq = 0;
  server.on('connection', (socket) => {
    socket.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString()) as { type: string; room?: string; text?: string };
      if (frame.type === 'join') {
        socket.send(JSON.stringify({ type: 'joined', room: frame.room, members: [], seq }));
        return;
      }
      if (frame.type !== 'chat.send') return;
      seq += 1;
      // The same shape and about the same size as the service's chat.message frame.
      const out = Buffer.from(
        JSON.stringify({
          type: 'chat.message',
          room: frame.room,
          message: {
            id: `msg_${seq.toString().padStart(26, '0')}`,
            roomId: frame.room,
            seq,
            author: {
              id: '00000000-0000-0000-0000-000000000000',
              type: 'end_user',
              externalId: 'bench:publisher',
            },
            text: frame.text,
            metadata: {},
            clientId: null,
            reactions: [],
            revision: 0,
            createdAt: new Date().toISOString(),
            editedAt: null,
            deletedAt: null,
          },
        }),
      );
      for (const client of server.clients) client.send(out, { binary: false });
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => resolve());
      }),
  };
}
