import type { Origin } from '../contexts.ts';
import type { JsonObject, PubSub, Unsubscribe } from '../realtime/index.ts';
import { decodeJsonObject, isJsonObject } from '../realtime/json.ts';
import type { TenantEvent } from './types.ts';

/** Where a subscriber's event was committed: on this instance, or on another that broadcast it. */
export type EventOrigin = 'here' | 'elsewhere';

export type EventHandler = (event: TenantEvent, origin: EventOrigin) => void;

/**
 * Committed events, published after commit to whoever listens (realtime fan-out, module subscribers).
 * `publish` reaches this instance's subscribers: each event is published once, by the instance that
 * committed it. `broadcast` also reaches the subscribers of every other instance (origin `elsewhere`),
 * for events no request on any particular instance waits for (a dead-lettering by a background worker).
 */
export interface EventBus {
  publish(event: TenantEvent): void;
  broadcast(event: TenantEvent): void;
  subscribe(handler: EventHandler): () => void;
  close(): Promise<void>;
}

/** One instance's subscribers; on its own (embedded mode, one instance) a broadcast is a publish. */
export class MemoryEventBus implements EventBus {
  private readonly handlers = new Set<EventHandler>();

  constructor(private readonly onError: (error: unknown) => void = () => {}) {}

  publish(event: TenantEvent): void {
    this.deliver(event, 'here');
  }

  broadcast(event: TenantEvent): void {
    this.deliver(event, 'here');
  }

  subscribe(handler: EventHandler): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  async close(): Promise<void> {
    this.handlers.clear();
  }

  protected deliver(event: TenantEvent, origin: EventOrigin): void {
    for (const handler of this.handlers) {
      try {
        handler(event, origin);
      } catch (error) {
        this.onError(error);
      }
    }
  }
}

/** The backplane channel of broadcast events: `{from, event}`. */
export const BROADCAST_CHANNEL = 'events:broadcast';

const ORIGINS: readonly string[] = ['api', 'console', 'realtime', 'mcp', 'system'] satisfies Origin[];

function isOrigin(value: unknown): value is Origin {
  return typeof value === 'string' && ORIGINS.includes(value);
}

/** An event as another instance sent it; undefined when it is not one. */
function eventFromWire(value: unknown): TenantEvent | undefined {
  if (!isJsonObject(value) || !isJsonObject(value.data) || !isJsonObject(value.trace)) return undefined;
  const { id, tenantId, type, createdAt, data, trace } = value;
  const { traceId, spanId, requestId, origin } = trace;
  if (typeof id !== 'string' || typeof tenantId !== 'string' || typeof type !== 'string') return undefined;
  if (typeof createdAt !== 'string' || typeof traceId !== 'string' || typeof spanId !== 'string')
    return undefined;
  if (typeof requestId !== 'string' || !isOrigin(origin)) return undefined;
  return { id, tenantId, type, createdAt, data, trace: { ...trace, traceId, spanId, requestId, origin } };
}

/**
 * This instance's subscribers plus the backplane (Redis when REDIS_URL is set): a broadcast event also
 * reaches every other instance's subscribers, at most once (pub/sub keeps nothing for an instance that
 * is cut off; the event stays in the log, `GET /v1/events`).
 */
export class BackplaneEventBus extends MemoryEventBus {
  private unsubscribe: Unsubscribe | undefined;

  private constructor(
    private readonly pubsub: PubSub,
    private readonly instanceId: string,
    private readonly report: (error: unknown) => void,
  ) {
    super(report);
  }

  /** Resolves once the other instances' broadcasts are heard. */
  static async open(
    pubsub: PubSub,
    instanceId: string,
    report: (error: unknown) => void,
  ): Promise<BackplaneEventBus> {
    const bus = new BackplaneEventBus(pubsub, instanceId, report);
    bus.unsubscribe = await pubsub.subscribe(BROADCAST_CHANNEL, (message) => bus.receive(message));
    return bus;
  }

  override broadcast(event: TenantEvent): void {
    super.broadcast(event);
    const message: JsonObject = { from: this.instanceId, event: decodeJsonObject(JSON.stringify(event)) };
    this.pubsub.publish(BROADCAST_CHANNEL, message).catch(this.report);
  }

  override async close(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await super.close();
  }

  private receive(message: JsonObject): void {
    if (message.from === this.instanceId) return;
    const event = eventFromWire(message.event);
    if (event === undefined) this.report(new TypeError('a broadcast event of an unknown shape'));
    else this.deliver(event, 'elsewhere');
  }
}
