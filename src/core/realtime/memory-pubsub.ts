import { decodeJsonObject, type JsonObject } from './json.ts';
import { callSafely, type ErrorReporter, ignoreErrors, ListenerSet } from './listeners.ts';
import {
  ChannelHandlers,
  type MessageHandler,
  type PubSub,
  PubSubClosedError,
  type Unsubscribe,
} from './pubsub.ts';

/**
 * The in-process stand-in for a Redis server: every MemoryPubSub attached to one broker behaves like an
 * app instance on one Redis. Embedded mode has exactly one; tests attach several.
 */
export class MemoryBroker {
  private readonly instances = new Set<MemoryPubSub>();

  attach(instance: MemoryPubSub): void {
    this.instances.add(instance);
  }

  detach(instance: MemoryPubSub): void {
    this.instances.delete(instance);
  }

  publish(channel: string, payload: string): void {
    // A microtask per message keeps one global order and never runs handlers inside publish(), so a
    // handler that publishes cannot overtake the message it is handling.
    queueMicrotask(() => {
      for (const instance of [...this.instances]) instance.receive(channel, payload);
    });
  }
}

export class MemoryPubSub implements PubSub {
  private readonly handlers = new ChannelHandlers();
  private readonly gapListeners: ListenerSet<[]>;
  private closed = false;

  constructor(
    private readonly broker: MemoryBroker = new MemoryBroker(),
    private readonly report: ErrorReporter = ignoreErrors,
  ) {
    this.gapListeners = new ListenerSet(report, 'pubsub delivery-gap listener');
    broker.attach(this);
  }

  async publish(channel: string, message: JsonObject): Promise<void> {
    if (this.closed) throw new PubSubClosedError();
    // Serialised as on Redis, so what works in embedded mode works scaled out (no shared references,
    // no values JSON cannot carry).
    this.broker.publish(channel, JSON.stringify(message));
  }

  async subscribe(channel: string, handler: MessageHandler): Promise<Unsubscribe> {
    if (this.closed) throw new PubSubClosedError();
    // A wrapper per call: subscribing one function twice gives two independent subscriptions.
    const registration: MessageHandler = (message, from) => handler(message, from);
    this.handlers.add(channel, registration);
    return () => {
      this.handlers.remove(channel, registration);
    };
  }

  onDeliveryGap(listener: () => unknown): () => void {
    // In-process delivery never drops messages, so this never fires; kept for the common interface.
    return this.gapListeners.add(listener);
  }

  /** Called by the broker: decodes once per instance, then fans out to local handlers. */
  receive(channel: string, payload: string): void {
    const handlers = this.handlers.of(channel);
    if (handlers.length === 0) return;
    const message = decodeJsonObject(payload);
    for (const handler of handlers) {
      callSafely(handler, [message, channel], this.report, `pubsub handler on ${channel}`);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.broker.detach(this);
    this.handlers.clear();
    this.gapListeners.clear();
  }
}
