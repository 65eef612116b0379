import type { Redis } from 'ioredis';
import type { JsonObject } from './json.ts';
import { type ErrorReporter, ignoreErrors } from './listeners.ts';
import { LocalFanout } from './local-fanout.ts';
import type { MessageHandler, Unsubscribe } from './pubsub.ts';
import {
  closeRedis,
  openRedis,
  pingRedis,
  REDIS_COMMAND_TIMEOUT_MS,
  redisConnected,
  redisFailure,
} from './redis-connection.ts';
import { REDIS_START_WAIT_MS } from './redis-start.ts';

export interface RedisPubSubOptions {
  url: string;
  /** Prepended to every channel on the wire, e.g. `svc:`; tests use a unique one per run. */
  prefix: string;
  /** Names the two connections in CLIENT LIST. */
  instanceId: string;
  report?: ErrorReporter;
}

/**
 * Pub/sub over Redis with one connection for PUBLISH and a dedicated one for SUBSCRIBE.
 *
 * Local subscribers are served by the Redis round-trip, not short-circuited: the instance holds one Redis
 * subscription per channel and fans each received message out to its local handlers. That gives
 * exactly-once delivery to the publishing instance without origin bookkeeping, and every instance sees
 * one channel's messages in the same order (Redis's), even with concurrent publishers on several
 * instances. The cost is one Redis hop for local receivers too (well under a millisecond on a LAN).
 */
export class RedisPubSub extends LocalFanout {
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private readonly prefix: string;
  private wasReady = false;
  private connectionLost = false;

  constructor(options: RedisPubSubOptions) {
    super(options.report ?? ignoreErrors);
    this.prefix = options.prefix;
    this.publisher = openRedis(options.url, `${options.instanceId}:pub`, this.report);
    this.subscriber = openRedis(options.url, `${options.instanceId}:sub`, this.report, {
      // We resubscribe from our own handler table: it is the truth about what is wanted now, and doing it
      // ourselves tells us when the subscriptions are back, which is when to announce the gap.
      autoResubscribe: false,
      // Its commands are not dropped after a few reconnection attempts: `subscribe` bounds its own wait.
      maxRetriesPerRequest: null,
      commandTimeout: undefined,
    });
    this.subscriber.on('message', (wireChannel: string, payload: string) =>
      this.receive(wireChannel, payload),
    );
    this.subscriber.on('close', () => {
      if (this.wasReady) this.connectionLost = true;
    });
    this.subscriber.on('ready', () => this.onSubscriberReady());
  }

  async publish(channel: string, message: JsonObject): Promise<void> {
    this.checkOpen();
    // One connection, commands in call order: Redis sees one publisher's messages in the order sent.
    try {
      await this.publisher.publish(this.prefix + channel, JSON.stringify(message));
    } catch (error) {
      throw redisFailure(error);
    }
  }

  async subscribe(channel: string, handler: MessageHandler): Promise<Unsubscribe> {
    this.checkOpen();
    const registration = this.register(channel, handler);
    const unsubscribe = () => {
      // A connection that is down has no subscriptions; it resubscribes only the wanted channels.
      if (this.handlers.remove(channel, registration) && !this.closed && redisConnected(this.subscriber)) {
        this.subscriber.unsubscribe(this.prefix + channel).catch((error: unknown) => {
          this.report(error, `redis unsubscribe ${channel}`);
        });
      }
    };
    try {
      // Sent even when the channel already has a handler: SUBSCRIBE is idempotent, and awaiting our own
      // reply (commands are answered in order) proves the subscription is live for this caller too.
      await this.subscribeBounded(channel);
    } catch (error) {
      unsubscribe();
      throw redisFailure(error);
    }
    return unsubscribe;
  }

  /** Both connections are up: a message published now reaches the other instances, and theirs reach us. */
  connected(): boolean {
    return redisConnected(this.publisher) && redisConnected(this.subscriber);
  }

  /**
   * The publishing connection answers (readiness). The subscriber is not pinged: its commands wait for
   * Redis by design; it shares the server with the publisher.
   */
  ping(): Promise<void> {
    return pingRedis(this.publisher);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closeHandlers();
    await Promise.all([closeRedis(this.publisher), closeRedis(this.subscriber)]);
  }

  /**
   * A SUBSCRIBE fails at once while the subscriber is down (the connection has no offline queue once it
   * was up), and fails after the command timeout when Redis does not answer (the start wait while the
   * connection is first being made: start-up checked that Redis answers, a loaded machine may be slow). The subscriber's own
   * commands wait for Redis instead (no retry limit), so a SUBSCRIBE the connection lost may still be
   * sent when it comes back: if nobody wants the channel by then, it is unsubscribed again.
   */
  private async subscribeBounded(channel: string): Promise<void> {
    const wire = this.prefix + channel;
    const subscribed = this.subscriber.subscribe(wire);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      // Real time on purpose: this bounds a network wait, not a business schedule.
      const waitMs = this.wasReady ? REDIS_COMMAND_TIMEOUT_MS : REDIS_START_WAIT_MS;
      timer = setTimeout(() => reject(new Error('SUBSCRIBE timed out')), waitMs);
    });
    try {
      await Promise.race([subscribed, timedOut]);
    } catch (error) {
      subscribed.then(
        () => {
          if (this.handlers.of(channel).length === 0 && !this.closed) {
            this.subscriber.unsubscribe(wire).catch(() => {});
          }
        },
        () => {},
      );
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  private receive(wireChannel: string, payload: string): void {
    if (!wireChannel.startsWith(this.prefix)) return;
    this.deliver(wireChannel.slice(this.prefix.length), payload);
  }

  private onSubscriberReady(): void {
    this.wasReady = true;
    if (!this.connectionLost || this.closed) return;
    this.connectionLost = false;
    const channels = this.handlers.channels().map((channel) => this.prefix + channel);
    const resubscribed = channels.length > 0 ? this.subscriber.subscribe(...channels) : Promise.resolve();
    resubscribed.then(
      () => this.gapListeners.emit(),
      (error: unknown) => this.report(error, 'redis resubscribe'),
    );
  }
}
