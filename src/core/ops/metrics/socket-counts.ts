/**
 * What one WebSocket surface (`/v1/realtime`, or a module's raw socket route such as sync) did since start:
 * plain numbers its hot paths bump (a field increment per frame), read by the registry when scraped.
 */
export class SocketCounts {
  open = 0;
  framesIn = 0;
  framesOut = 0;
  /** Connections closed because the client read too slowly (4413, or the module's own code). */
  slowConsumerDrops = 0;
  /** Closes by the code the connection ended with (1006 when it was cut off without a close frame). */
  readonly closes = new Map<number, number>();

  closed(code: number): void {
    this.closes.set(code, (this.closes.get(code) ?? 0) + 1);
  }
}
