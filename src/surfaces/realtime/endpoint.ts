import { type Static, Type } from 'typebox';
import type { GatewayLimits } from './limits.ts';

/** What a GET without the upgrade answers: where to connect, and the limits a connection lives with. */
export const RealtimeEndpoint = Type.Object(
  {
    url: Type.String({ description: 'The WebSocket address (from SVC_PUBLIC_URL)' }),
    limits: Type.Object({
      maxFrameBytes: Type.Integer({ description: 'Larger frames close the connection with 1009' }),
      framesPerSecond: Type.Integer({ description: 'Sustained frames per second a client may send' }),
      frameBurst: Type.Integer({ description: 'Frames a client may send at once above that rate' }),
      maxRoomsPerConnection: Type.Integer(),
      heartbeatMs: Type.Integer({ description: 'How often the server pings' }),
      idleTimeoutMs: Type.Integer({ description: 'Silence after which the connection is closed with 4408' }),
      maxConnectionsPerActor: Type.Integer({ description: 'Connections of one actor on one instance' }),
    }),
  },
  {
    title: 'RealtimeEndpoint',
    description: 'Where to connect to the realtime gateway, and the limits that apply',
  },
);

export function describeEndpoint(publicUrl: string, limits: GatewayLimits): Static<typeof RealtimeEndpoint> {
  return {
    url: `${publicUrl.replace(/^http/, 'ws')}/v1/realtime`,
    limits: {
      maxFrameBytes: limits.maxFrameBytes,
      framesPerSecond: limits.framesPerSecond,
      frameBurst: limits.frameBurst,
      maxRoomsPerConnection: limits.maxRoomsPerConnection,
      heartbeatMs: limits.heartbeatMs,
      idleTimeoutMs: limits.idleTimeoutMs,
      maxConnectionsPerActor: limits.maxConnectionsPerActor,
    },
  };
}

/**
 * The operation in /openapi.json; the frames themselves are the protocol in docs/realtime.md. A new object
 * for each app: the OpenAPI hook adds the route's security to the schema it is given.
 */
export const endpointSchema = () => ({
  operationId: 'connectRealtime',
  summary: 'Open the realtime WebSocket (rooms, presence, chat, room events)',
  description: [
    'Upgrades to a WebSocket (`Connection: Upgrade`, `Upgrade: websocket`) and answers `101 Switching ' +
      'Protocols`; from then on both sides send JSON text frames: join rooms, presence, chat, typing and ' +
      'room events. The frames, resume, limits and close codes are a public protocol, described in ' +
      '[docs/realtime.md](docs/realtime.md) in the service’s repository.',
    'The credential is a session token from `POST /v1/runtime/connect`: `Authorization: Bearer <token>`, ' +
      'or the `token` query parameter for clients that cannot set headers (browsers). It is checked before ' +
      'the upgrade, so a refused token is a plain HTTP error. So is a connection over the instance’s or ' +
      'the actor’s connection cap: 429 `rate_limited` with `Retry-After`.',
    'Without `Upgrade: websocket`, nothing is opened: the answer (200) says where to connect and which ' +
      'limits apply.',
  ].join('\n\n'),
  tags: ['realtime'],
  querystring: Type.Object({
    token: Type.Optional(
      Type.String({ description: 'The session token, when it is not sent as `Authorization: Bearer`' }),
    ),
  }),
  response: {
    101: {
      description: 'Switching Protocols: the connection is now a WebSocket (protocol in docs/realtime.md)',
      type: 'null',
    },
    200: { ...RealtimeEndpoint, description: 'Without the upgrade: where to connect and the limits' },
  },
});
