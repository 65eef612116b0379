import { decodeJsonObject, type JsonObject } from './json.ts';
import { callSafely, type ErrorReporter, ListenerSet } from './listeners.ts';
import {
  ChannelHandlers,
  type MessageHandler,
  type PubSub,
  PubSubClosedError,
  type Unsubscribe,
} from './pubsub.ts';

/**
 * What every pub/sub does the same way, whatever carries the messages: the table of this instance's
 * handlers by channel, a message received decoded once and handed to each of them, the delivery-gap
 * listeners, and refusing work once closed.
 */
export abstract class LocalFanout implements PubSub {
  protected readonly handlers = new ChannelHandlers();
  protected readonly gapListeners: ListenerSet<[]>;
  protected closed = false;

  constructor(protected readonly report: ErrorReporter) {
    this.gapListeners = new ListenerSet(report, 'pubsub delivery-gap listener');
  }

  abstract publish(channel: string, message: JsonObject): Promise<void>;
  abstract subscribe(channel: string, handler: MessageHandler): Promise<Unsubscribe>;
  abstract close(): Promise<void>;

  onDeliveryGap(listener: () => unknown): () => void {
    return this.gapListeners.add(listener);
  }

  /** Throws once closed: neither publishing nor subscribing is possible then. */
  protected checkOpen(): void {
    if (this.closed) throw new PubSubClosedError();
  }

  /**
   * Adds `handler` for `channel` and answers its registration: a wrapper per call, so subscribing one
   * function twice gives two independent subscriptions.
   */
  protected register(channel: string, handler: MessageHandler): MessageHandler {
    const registration: MessageHandler = (message, from) => handler(message, from);
    this.handlers.add(channel, registration);
    return registration;
  }

  /** A message received on `channel`: decoded once, then handed to each local handler. */
  protected deliver(channel: string, payload: string): void {
    const handlers = this.handlers.of(channel);
    if (handlers.length === 0) return;
    let message: JsonObject;
    try {
      message = decodeJsonObject(payload);
    } catch (error) {
      this.report(error, `pubsub payload on ${channel}`);
      return;
    }
    for (const handler of handlers) {
      callSafely(handler, [message, channel], this.report, `pubsub handler on ${channel}`);
    }
  }

  /** Closes the instance: no handler hears anything more. */
  protected closeHandlers(): void {
    this.closed = true;
    this.handlers.clear();
    this.gapListeners.clear();
  }
}
