/** Chat's own realtime knobs (the gateway enforces none of them); tests shorten them. */
export interface ChatRealtimeOptions {
  /** `typing` frames more often than this per room are dropped without an error. */
  typingIntervalMs: number;
  /** How long an out-of-order chat change waits for the ones before it before they are read from the database. */
  gapWaitMs: number;
  /** Changes read per page when a resuming client catches up. */
  replayPageSize: number;
}

export const DEFAULT_CHAT_REALTIME: ChatRealtimeOptions = {
  typingIntervalMs: 1000,
  gapWaitMs: 100,
  replayPageSize: 100,
};
