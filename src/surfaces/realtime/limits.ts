/**
 * What the realtime gateway itself enforces on `/v1/realtime`; tests shorten the timings. (A module's own
 * knobs, such as chat's typing interval, are the module's.)
 */
export interface GatewayLimits {
  /** Open connections this instance accepts (SVC_REALTIME_MAX_CONNECTIONS); more are refused with 429. */
  maxConnections: number;
  /** Open connections of one actor on this instance (SVC_REALTIME_MAX_CONNECTIONS_PER_ACTOR). */
  maxConnectionsPerActor: number;
  /** Larger frames close the connection with 1009. Fits a 4,000-character message of 4-byte characters. */
  maxFrameBytes: number;
  /** Token bucket: sustained frames per second, and the burst allowed above it. */
  framesPerSecond: number;
  frameBurst: number;
  /** Frames refused in a row (bucket empty) before the connection is closed with 4429. */
  floodCloseAfter: number;
  /** Bytes waiting to be written to a client before it counts as too slow and is disconnected. */
  maxBufferedBytes: number;
  /** Frames accepted but not yet handled (they are handled one at a time, in order). */
  maxQueuedFrames: number;
  /** Frames held for a connection while it catches up from the database. */
  maxHeldFrames: number;
  /** How often the server pings every connection and re-checks its token. */
  heartbeatMs: number;
  /** Nothing heard (no frame, no pong) for this long closes the connection with 4408. */
  idleTimeoutMs: number;
  maxRoomsPerConnection: number;
  /** Connections in one room on this instance (SVC_REALTIME_MAX_ROOM_MEMBERS); a join past it gets `room_full`. */
  maxRoomMembers: number;
  /** Frame deliveries to room members per turn of the event loop; the rest wait a turn (FanOutPacer). */
  fanOutPerTurn: number;
  /** After sending a close frame, how long the client has to answer before the socket is destroyed. */
  closeGraceMs: number;
}

export const DEFAULT_LIMITS: GatewayLimits = {
  maxConnections: 10_000,
  maxConnectionsPerActor: 20,
  maxFrameBytes: 32 * 1024,
  framesPerSecond: 20,
  frameBurst: 40,
  floodCloseAfter: 200,
  maxBufferedBytes: 1024 * 1024,
  maxQueuedFrames: 64,
  maxHeldFrames: 5000,
  heartbeatMs: 20_000,
  idleTimeoutMs: 60_000,
  maxRoomsPerConnection: 20,
  maxRoomMembers: 500,
  fanOutPerTurn: 5000,
  closeGraceMs: 2000,
};
