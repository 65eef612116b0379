/** An auction's numbered frames are one ordered stream of each membership. */
export const streamOf = (auctionId: string) => `auction:${auctionId}`;

export interface LoggedFrame {
  seq: number;
  frame: Record<string, unknown>;
}

/** Logged frames read per page when an auction's stream catches up. */
export const LOG_PAGE = 500;
