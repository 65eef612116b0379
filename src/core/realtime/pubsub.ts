import type { JsonObject } from './json.ts';

export type MessageHandler = (message: JsonObject, channel: string) => unknown;
export type Unsubscribe = () => void;

/**
 * Fan-out between instances. Every instance subscribed to a channel receives each message published on
 * it exactly once, the publishing instance included, in publish order per channel (for one publisher;
 * concurrent publishers are interleaved the same way for every receiver).
 *
 * Delivery is at most once: Redis pub/sub keeps nothing for a subscriber that is disconnected, so
 * `onDeliveryGap` tells the caller when messages may have been lost and state should be re-read.
 */
export interface PubSub {
  /** Resolves once the backplane has accepted the message (not once it was delivered). */
  publish(channel: string, message: JsonObject): Promise<void>;
  /**
   * Resolves once the subscription is active: anything published after that is delivered. The returned
   * function removes this handler; after it returns the handler is never called again.
   */
  subscribe(channel: string, handler: MessageHandler): Promise<Unsubscribe>;
  /** Called after the backplane connection came back, with every subscription active again. */
  onDeliveryGap(listener: () => unknown): () => void;
  close(): Promise<void>;
}

export class PubSubClosedError extends Error {
  constructor() {
    super('the pub/sub backplane is closed');
    this.name = 'PubSubClosedError';
  }
}

/** Local handlers of one channel on one instance; shared by both implementations. */
export class ChannelHandlers {
  private readonly byChannel = new Map<string, Set<MessageHandler>>();

  add(channel: string, handler: MessageHandler): void {
    const existing = this.byChannel.get(channel);
    if (existing === undefined) this.byChannel.set(channel, new Set([handler]));
    else existing.add(handler);
  }

  /** Returns true when the channel has no handler left, i.e. the instance may unsubscribe. */
  remove(channel: string, handler: MessageHandler): boolean {
    const handlers = this.byChannel.get(channel);
    if (handlers === undefined || !handlers.delete(handler)) return false;
    if (handlers.size > 0) return false;
    this.byChannel.delete(channel);
    return true;
  }

  /** A snapshot, so handlers that subscribe or unsubscribe while being called don't disturb the loop. */
  of(channel: string): MessageHandler[] {
    const handlers = this.byChannel.get(channel);
    return handlers === undefined ? [] : [...handlers];
  }

  channels(): string[] {
    return [...this.byChannel.keys()];
  }

  clear(): void {
    this.byChannel.clear();
  }
}
