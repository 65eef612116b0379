import { Type } from 'typebox';
import {
  defineJoin,
  type JoinContribution,
  type RealtimeMembership,
} from '../../../core/realtime/contributions.ts';
import type { RoomKey } from '../../../core/realtime/index.ts';
import { SharedReads } from '../../../core/realtime/shared-reads.ts';
import { idPattern } from '../ids.ts';
import { readLog, roomAuctions } from './log.ts';
import { streamOf } from './stream.ts';

const ResumeFields = {
  /**
   * Resume: the last `seq` this client got of each auction (`{auctionId: seq}`); every frame after it is
   * sent first. Auctions left out start from now.
   */
  auctions: Type.Optional(
    Type.Record(Type.String({ pattern: idPattern('auction') }), Type.Integer({ minimum: 0 }), {
      maxProperties: 100,
    }),
  ),
};

/**
 * Auctions' part of a join: `joined` says where each auction of the room stands (`auctions: {id: seq}`);
 * a client that resumes then gets every frame it missed, from the auctions' logs, before live ones.
 */
export function auctionsJoin(): JoinContribution {
  const latestAtJoin = new WeakMap<RealtimeMembership, ReadonlyMap<string, number>>();
  // Joins of one room at the same time share the read of its auctions (each asks once it is subscribed);
  // the map is shared too, and only read.
  const rooms = new SharedReads<RoomKey, ReadonlyMap<string, number>>();
  return defineJoin({
    fields: ResumeFields,
    async enter(host, membership, frame) {
      const ctx = host.context(membership.connection);
      const latest = await rooms.read(membership.key, () => roomAuctions(ctx, frame.room));
      const resume = frame.auctions ?? {};
      for (const [auctionId, seq] of latest)
        membership.setPosition(streamOf(auctionId), Math.min(resume[auctionId] ?? seq, seq));
      latestAtJoin.set(membership, latest);
      return { auctions: Object.fromEntries(latest) };
    },
    async joined(host, membership) {
      const latest = latestAtJoin.get(membership) ?? new Map<string, number>();
      latestAtJoin.delete(membership);
      if (!membership.connection.may('auctions', 'auctions:read')) return;
      const ctx = host.context(membership.connection);
      for (const [auctionId, seq] of latest) {
        const stream = streamOf(auctionId);
        while (membership.position(stream) < seq) {
          const page = await readLog(
            ctx,
            auctionId,
            membership.position(stream) + 1,
            host.streams.replayPageSize,
          );
          if (page.length === 0) break;
          for (const logged of page)
            membership.caughtUp(stream, logged.seq, Buffer.from(JSON.stringify(logged.frame)));
          if (!(await membership.connection.drained())) return;
        }
      }
    },
  });
}
