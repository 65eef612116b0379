import { IncomingMessage } from 'node:http';

/**
 * The server's requests (Node's `IncomingMessage`, made by the HTTP parser), each stamped with when it
 * arrived: where the request-duration metric starts, without a hook or a listener per request.
 */
export class StampedRequest extends IncomingMessage {
  /** `performance.now()` when the request's head was parsed. */
  readonly arrivedAt = performance.now();
}

/** Milliseconds since `raw` arrived; 0 for a request made without a socket (`inject`), which has no stamp. */
export function elapsedSince(raw: IncomingMessage): number {
  return raw instanceof StampedRequest ? performance.now() - raw.arrivedAt : 0;
}
