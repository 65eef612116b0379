import type { WebSocketConstructor, WebSocketLike } from '../../src/realtime.ts';

/**
 * Timers that only move when told to, and sockets whose server is a function: for the reconnect
 * schedule, which the tests run for thousands of clients over simulated minutes in milliseconds.
 */
export class FakeScheduler {
  private current = 0;
  private seq = 0;
  private readonly timers = new Map<number, { at: number; fn: () => void }>();

  now = (): number => this.current;

  setTimeout = (fn: () => void, ms: number): unknown => {
    const id = ++this.seq;
    this.timers.set(id, { at: this.current + Math.max(0, ms), fn });
    return id;
  };

  clearTimeout = (handle: unknown): void => {
    this.timers.delete(handle as number);
  };

  /**
   * Runs every timer due up to `ms` from now, in time order (ties in the order they were set), letting
   * the promises each one starts settle before the next (the client awaits `getToken`).
   */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    await settle();
    for (;;) {
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const entry of this.timers) if (next === undefined || entry[1].at < next[1].at) next = entry;
      if (next === undefined || next[1].at > target) break;
      this.timers.delete(next[0]);
      this.current = next[1].at;
      next[1].fn();
      await settle();
    }
    this.current = target;
  }
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

/** A seeded random (mulberry32): the same figures every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export class FakeSocket implements WebSocketLike {
  readyState = 0;
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number; reason: string }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  readonly sent: string[] = [];

  constructor(
    readonly url: string,
    private readonly scheduler: FakeScheduler,
  ) {}

  /** Kept; a ping is answered with a pong, as the server does. */
  send(data: string): void {
    this.sent.push(data);
    const frame = JSON.parse(data) as { type: string; ref?: string };
    if (frame.type === 'ping') {
      this.scheduler.setTimeout(() => {
        if (this.readyState === 1)
          this.deliver({ type: 'pong', ...(frame.ref === undefined ? {} : { ref: frame.ref }) });
      }, 1);
    }
  }

  close(): void {
    this.readyState = 3;
  }

  /** The server accepts the connection. */
  accept(): void {
    this.scheduler.setTimeout(() => {
      this.readyState = 1;
      this.onopen?.({});
    }, 0);
  }

  /** The server (or the network) ends it with `code`. */
  end(code: number, reason = ''): void {
    this.scheduler.setTimeout(() => {
      this.readyState = 3;
      this.onclose?.({ code, reason });
    }, 0);
  }

  /** A frame from the server. */
  deliver(frame: object): void {
    this.onmessage?.({ data: JSON.stringify(frame) });
  }
}

/** A WebSocket class whose every new socket is handed to `server` (which accepts or ends it). */
export function fakeWebSocket(
  scheduler: FakeScheduler,
  server: (socket: FakeSocket) => void,
): WebSocketConstructor & { sockets: FakeSocket[] } {
  const sockets: FakeSocket[] = [];
  const Fake = class extends FakeSocket {
    constructor(url: string) {
      super(url, scheduler);
      sockets.push(this);
      server(this);
    }
  };
  return Object.assign(Fake, { sockets });
}
