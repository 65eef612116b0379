import { type PubSub, PubSubClosedError } from '../realtime/pubsub.ts';

/** A module's background work, started when the app is ready and stopped before it closes. */
export interface BackgroundWorker {
  start(): void | Promise<void>;
  /** Stops taking work; work in flight gets `graceMs` to finish. */
  stop(options: { graceMs: number }): Promise<void>;
  /** Work may be waiting (e.g. rows an outbox writer added): look now rather than at the next poll. */
  wake?(): void;
  /**
   * True while a wake makes it take new work at once (running, not at its concurrency limit). When it is
   * false or missing, `Workers.wake` also wakes the module's workers on the other instances.
   */
  hasCapacity?(): boolean;
}

/** How the workers of one app reach those of the others: the backplane (Redis when REDIS_URL is set). */
export interface WorkerWakeChannel {
  pubsub: PubSub;
  /** This app's name on the backplane: its own wakes come back to it and are ignored. */
  instanceId: string;
  report(error: unknown, context: string): void;
}

/** The backplane channel of cross-instance wakes: `{module, from}`. */
export const WAKE_CHANNEL = 'workers:wake';

/**
 * The app's background workers by module name, so a verb or hook can say "there is work"
 * (`wake('webhooks')`) without holding the worker. A wake reaches this instance's worker at once; when
 * that worker cannot take the work now (none runs here, or it is at its limit), it also goes to the
 * module's workers on every other instance, through the backplane. A wake lost there only delays: workers
 * still poll.
 */
export class Workers {
  private readonly byModule = new Map<string, BackgroundWorker>();
  /** Modules whose wake is being sent to the other instances; `again`: send once more when it is out. */
  private readonly sending = new Map<string, 'sending' | 'again'>();
  private unsubscribe: (() => void)[] = [];

  constructor(private readonly channel?: WorkerWakeChannel) {}

  add(module: string, worker: BackgroundWorker): void {
    this.byModule.set(module, worker);
  }

  wake(module: string): void {
    const local = this.byModule.get(module);
    local?.wake?.();
    if (local?.hasCapacity?.() !== true) this.wakeElsewhere(module);
  }

  /** Starts the workers; with a channel, first hears the other instances' wakes. */
  async start(): Promise<void> {
    const channel = this.channel;
    if (channel !== undefined && this.byModule.size > 0) {
      this.unsubscribe.push(
        await channel.pubsub.subscribe(WAKE_CHANNEL, (message) => {
          if (message.from === channel.instanceId || typeof message.module !== 'string') return;
          this.byModule.get(message.module)?.wake?.();
        }),
        // Wakes sent while this instance was cut off from the backplane are lost: look now.
        channel.pubsub.onDeliveryGap(() => {
          for (const worker of this.byModule.values()) worker.wake?.();
        }),
      );
    }
    for (const worker of this.byModule.values()) await worker.start();
  }

  async stop(options: { graceMs: number }): Promise<void> {
    for (const unsubscribe of this.unsubscribe.splice(0)) unsubscribe();
    await Promise.all([...this.byModule.values()].map((worker) => worker.stop(options)));
  }

  /**
   * One message per module at a time: wakes asked for while one is being sent coalesce into one more,
   * sent after it (a wake covers everything committed before it is received).
   */
  private wakeElsewhere(module: string): void {
    const channel = this.channel;
    if (channel === undefined) return;
    if (this.sending.has(module)) {
      this.sending.set(module, 'again');
      return;
    }
    this.sending.set(module, 'sending');
    const send = async (): Promise<void> => {
      do {
        this.sending.set(module, 'sending');
        await channel.pubsub.publish(WAKE_CHANNEL, { module, from: channel.instanceId });
      } while (this.sending.get(module) === 'again');
    };
    send()
      .catch((error: unknown) => {
        // Closing: the other instances' polls still find the work.
        if (!(error instanceof PubSubClosedError))
          channel.report(error, `waking ${module} workers elsewhere`);
      })
      .finally(() => this.sending.delete(module));
  }
}
