import type { Clock } from '../../core/clock.ts';
import { CLOSE } from './close-codes.ts';

/** Batches are at least this far apart: 200 sockets over 10 s close two at a time, about every 100 ms. */
export const MIN_BATCH_GAP_MS = 100;

/** What a drain closes: the gateway's connections and the raw socket routes' alike. */
export interface DrainedSocket {
  readonly isOpen: boolean;
  close(code: number, reason: string): void;
}

export interface DrainWindow {
  clock: Clock;
  windowMs: number;
  /** A number in [0, 1): where in its slot of the window each batch falls (default Math.random). */
  random?: () => number;
}

/**
 * When each batch closes, in ms from the start: the window is cut into one slot per batch and each batch
 * falls at a random point of its own slot, so batches never bunch up and the last one is inside the window.
 */
export function batchDelays(batches: number, windowMs: number, random: () => number): number[] {
  const slot = windowMs / batches;
  return Array.from({ length: batches }, (_, i) => Math.floor((i + random()) * slot));
}

/**
 * Closes the sockets with 1012 ("restarting: reconnect") in jittered batches spread over the window, so
 * their clients reconnect to the other instances a few at a time instead of all in one instant. Resolves
 * once the last batch was told to close. A window of 0 closes them all now.
 */
export function closeInBatches(sockets: readonly DrainedSocket[], window: DrainWindow): Promise<void> {
  const close = (batch: readonly DrainedSocket[]) => {
    for (const socket of batch) if (socket.isOpen) socket.close(CLOSE.restart, 'server restarting');
  };
  if (window.windowMs === 0 || sockets.length === 0) {
    close(sockets);
    return Promise.resolve();
  }
  const count = Math.max(1, Math.min(sockets.length, Math.floor(window.windowMs / MIN_BATCH_GAP_MS)));
  const delays = batchDelays(count, window.windowMs, window.random ?? Math.random);
  return new Promise((resolve) => {
    let left = count;
    delays.forEach((delay, i) => {
      const from = Math.floor((i * sockets.length) / count);
      const to = Math.floor(((i + 1) * sockets.length) / count);
      window.clock.setTimeout(() => {
        close(sockets.slice(from, to));
        left -= 1;
        if (left === 0) resolve();
      }, delay);
    });
  });
}
