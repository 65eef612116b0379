import { ACTOR_TYPES, type Actor } from '../../core/tenancy/actors.ts';

/** The auctions module's event this module settles (its name and data are the contract between the two). */
export const AUCTION_ENDED = 'auction.ended';

/** What an `auction.ended` event says, as far as settlement needs it. */
export interface EndedAuction {
  auctionId: string;
  roomId: string;
  outcome: string;
  finalPrice: number;
  currency: string;
  /** The winner as the API names actors (`{type, id: "<provider>:<external_id>", identityProvider}`). */
  winner: Actor;
}

const isText = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/** The event's winner, an Actor object. */
function winnerOf(winner: unknown): Actor | undefined {
  if (typeof winner !== 'object' || winner === null) return undefined;
  const [type, id, identityProvider]: unknown[] = ['type', 'id', 'identityProvider'].map((key) =>
    Reflect.get(winner, key),
  );
  const known = ACTOR_TYPES.find((t) => t === type);
  if (known === undefined || !isText(id) || !isText(identityProvider)) return undefined;
  return { type: known, id, identityProvider };
}

/** The ended auction an `auction.ended` event's data tells of, when it was sold to someone for a price. */
export function soldAuction(data: Record<string, unknown>): EndedAuction | undefined {
  const { auctionId, roomId, outcome, finalPrice, currency } = data;
  const winner = winnerOf(data.winner);
  if (
    (outcome !== 'sold' && outcome !== 'bought_now') ||
    typeof auctionId !== 'string' ||
    typeof roomId !== 'string' ||
    typeof finalPrice !== 'number' ||
    !Number.isSafeInteger(finalPrice) ||
    finalPrice <= 0 ||
    typeof currency !== 'string' ||
    winner === undefined
  ) {
    return undefined;
  }
  return { auctionId, roomId, outcome, finalPrice, currency, winner };
}
