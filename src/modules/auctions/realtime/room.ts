import type { ModuleRoom, RealtimeHost, RealtimeRoom } from '../../../core/realtime/contributions.ts';
import { encodeFrame } from '../../../core/realtime/contributions.ts';
import type { JsonObject } from '../../../core/realtime/index.ts';
import { OrderedStream } from '../../../core/realtime/ordered-stream.ts';
import { readLog, roomAuctions } from './log.ts';
import { LOG_PAGE, type LoggedFrame, streamOf } from './stream.ts';

/** Reads a channel payload back: only this service publishes on it, so its fields are checked, not parsed. */
function readFrame(payload: JsonObject): { auctionId: string; logged: LoggedFrame } | undefined {
  const frame = payload.frame;
  if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) return undefined;
  const { auctionId, seq } = frame;
  if (typeof auctionId !== 'string' || typeof seq !== 'number') return undefined;
  return { auctionId, logged: { seq, frame } };
}

/**
 * Auctions in one room on one instance: each auction's frames reach the members whose token reads
 * auctions, once each, in seq order (one stream per auction).
 */
export function auctionRoom(host: RealtimeHost, room: RealtimeRoom): ModuleRoom {
  const { tenantId, roomId } = room;
  /** Each auction's frames in seq order, whatever order they arrive in (see OrderedStream). */
  const streams = new Map<string, OrderedStream<LoggedFrame>>();
  /** Where each auction stood when this instance subscribed; auctions created later start at 1. */
  let known = new Map<string, number>();

  const streamFor = (auctionId: string): OrderedStream<LoggedFrame> => {
    let stream = streams.get(auctionId);
    if (stream === undefined) {
      const name = streamOf(auctionId);
      stream = new OrderedStream<LoggedFrame>(
        {
          seqOf: (logged) => logged.seq,
          readFrom: (from, limit) => readLog(host.systemContext(tenantId), auctionId, from, limit),
          deliver: ({ seq, frame }) => {
            const encoded = encodeFrame(frame as { type: string });
            for (const m of room.members)
              if (m.connection.may('auctions', 'auctions:read')) m.deliverInOrder(name, seq, encoded);
          },
          pageSize: LOG_PAGE,
          gapWaitMs: host.streams.gapWaitMs,
          clock: host.clock,
          report: host.report,
          reportContext: 'realtime auction catch-up',
        },
        (known.get(auctionId) ?? 0) + 1,
      );
      streams.set(auctionId, stream);
    }
    return stream;
  };

  return {
    open: async () => {
      known = await roomAuctions(host.systemContext(tenantId), roomId);
    },
    receive: (_kind, payload) => {
      const read = readFrame(payload);
      if (read === undefined) {
        host.report(new Error('unreadable auction frame'), `room ${roomId}`);
        return;
      }
      streamFor(read.auctionId).received(read.logged);
    },
    catchUp: () => {
      for (const stream of streams.values()) stream.catchUp();
    },
    reset: () => {
      for (const stream of streams.values()) stream.stop();
      streams.clear();
      known = new Map();
    },
    close: () => {
      for (const stream of streams.values()) stream.stop();
      streams.clear();
    },
  };
}
