import type { JsonObject } from './json.ts';
import { type ErrorReporter, ignoreErrors } from './listeners.ts';
import { LocalFanout } from './local-fanout.ts';
import type { MessageHandler, Unsubscribe } from './pubsub.ts';

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

export class MemoryPubSub extends LocalFanout {
  constructor(
    private readonly broker: MemoryBroker = new MemoryBroker(),
    report: ErrorReporter = ignoreErrors,
  ) {
    super(report);
    broker.attach(this);
  }

  async publish(channel: string, message: JsonObject): Promise<void> {
    this.checkOpen();
    // Serialised as on Redis, so what works in embedded mode works scaled out (no shared references,
    // no values JSON cannot carry).
    this.broker.publish(channel, JSON.stringify(message));
  }

  async subscribe(channel: string, handler: MessageHandler): Promise<Unsubscribe> {
    this.checkOpen();
    const registration = this.register(channel, handler);
    return () => {
      this.handlers.remove(channel, registration);
    };
  }

  // In-process delivery never drops messages, so delivery-gap listeners never hear from this one.

  /** Called by the broker: decodes once per instance, then fans out to local handlers. */
  receive(channel: string, payload: string): void {
    this.deliver(channel, payload);
  }

  async close(): Promise<void> {
    this.closeHandlers();
    this.broker.detach(this);
  }
}
