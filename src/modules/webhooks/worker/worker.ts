import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Timer } from '../../../core/clock.ts';
import type { Database } from '../../../core/db/database.ts';
import { WakeLoop } from '../../../core/modules/wake-loop.ts';
import { type DestinationPolicy, destinationPolicy } from '../destinations.ts';
import { readSecret, type StoredSecret } from '../endpoint-secrets.ts';
import { deliveryHeaders } from '../signing.ts';
import { EndpointAgents } from './agents.ts';
import { attemptSpan, endAttemptSpan } from './attempt-span.ts';
import { type ClaimedDelivery, claimDue } from './claim.ts';
import { guardedLookup, systemResolver } from './lookup.ts';
import type { WebhookWorkerOptions, WorkerLog } from './options.ts';
import { AttemptRecorder } from './record-batch.ts';
import { sendAttempt } from './send.ts';

export type { WebhookWorkerOptions, WorkerLog } from './options.ts';

const silentLog: WorkerLog = { error() {}, warn() {} };
/**
 * An attempt ends within the timeout (`sendAttempt` enforces it), and its outcome is written in a few
 * milliseconds more; 5 s covers a slow commit. So a crashed worker's deliveries are retaken the timeout
 * plus 5 s after their claim (15 s by default). A recording later than that only loses the lease: the row
 * may then be sent once more, which at-least-once delivery allows.
 */
export const LEASE_MARGIN_MS = 5000;
const ERROR_BACKOFF_MS = 1000;
const CONTENDED_RETRY_MS = 20;
/** One claim and one recording transaction at a time, plus a spare. */
const WORKER_CONNECTIONS = 3;
/** Decrypted endpoint secrets kept (by stored ciphertext, so a rotated secret is a new entry). */
const MAX_CACHED_SECRETS = 1024;

interface InFlight {
  done: Promise<void>;
  abort: AbortController;
}

/**
 * Delivers pending webhook deliveries: claims due rows with a lease, sends, records, reschedules.
 * Every instance runs one. `wake()` after committing new deliveries; otherwise it sleeps until the next
 * retry or lease expiry is due (or `maxPollMs`).
 */
export class WebhookWorker {
  readonly instanceId: string;
  private readonly loop: WakeLoop;
  private readonly inFlight = new Map<string, InFlight>();
  /** Deliveries whose request was answered while their outcome is being recorded (see ClaimOptions). */
  private readonly answered = new Set<string>();
  private readonly agents: EndpointAgents;
  /** Stored (encrypted) secret -> the secret: one decryption per secret, not per attempt. */
  private readonly secrets = new Map<string, string | undefined>();
  private readonly log: WorkerLog;
  private readonly random: () => number;
  private readonly maxConcurrency: number;
  private readonly perEndpoint: number;
  private readonly perTenant: number;
  private readonly leaseMs: number;
  private readonly maxPollMs: number;
  private readonly policy: DestinationPolicy;
  private recorder: AttemptRecorder;
  /** Connections of its own on PostgreSQL, opened by the first tick: see Database.dedicated. */
  private db: Database;
  private ownDb: Database | undefined;

  constructor(private readonly options: WebhookWorkerOptions) {
    this.instanceId =
      options.instanceId ?? `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
    this.log = options.log ?? silentLog;
    this.random = options.random ?? Math.random;
    // PGlite is one in-process connection whose queries run on this thread: more attempts at once only
    // queue there and starve the event loop (responses then lose the race with their timeouts).
    // A tenant's share (across instances) bounds its deliveries per second: 128 of an instance's 512 (a
    // quarter, as 64 of 256 was) halved a 1,000-delivery burst's p99 in bench:webhooks (docs/webhooks.md).
    const embedded = options.db.kind === 'pglite';
    this.maxConcurrency = options.maxConcurrency ?? (embedded ? 64 : 512);
    const { config } = options;
    this.perEndpoint =
      options.perEndpointConcurrency ?? config.webhookEndpointConcurrency ?? (embedded ? 8 : 32);
    this.perTenant = options.perTenantConcurrency ?? config.webhookTenantConcurrency ?? (embedded ? 16 : 128);
    this.leaseMs = options.config.webhookTimeoutMs + (options.leaseMarginMs ?? LEASE_MARGIN_MS);
    this.maxPollMs = options.maxPollMs ?? 5000;
    this.policy = destinationPolicy(options.config);
    this.db = options.db;
    this.recorder = this.recorderOn(options.db);
    this.loop = new WakeLoop({
      clock: options.clock,
      tick: () => this.tick(),
      failed: (error) => this.log.error({ err: error }, 'webhook worker: claiming deliveries failed'),
      errorBackoffMs: ERROR_BACKOFF_MS,
    });
    const lookup = guardedLookup(this.policy, options.resolve ?? systemResolver);
    this.agents = new EndpointAgents({ lookup, ca: options.tls?.ca, maxSockets: this.perEndpoint });
  }

  private recorderOn(db: Database): AttemptRecorder {
    return new AttemptRecorder(db, {
      owner: this.instanceId,
      schedule: this.options.config.webhookRetryScheduleMs,
      random: this.random,
      emit: this.options.emitTenantEvent,
      circuit: {
        timeouts: this.options.config.webhookCircuitTimeouts,
        openMs: this.options.config.webhookCircuitOpenMs,
      },
      circuitOpened: (opened) => {
        for (const circuit of opened) {
          this.log.warn(circuit, 'webhook worker: an endpoint keeps timing out, its circuit is open');
        }
      },
    });
  }

  start(): void {
    this.loop.start();
  }

  /** On PostgreSQL the first tick opens connections of the worker's own (see Database.dedicated). */
  private async useOwnConnections(): Promise<void> {
    if (this.ownDb !== undefined || this.options.db.kind !== 'postgres') return;
    this.ownDb = await this.options.db.dedicated({ max: WORKER_CONNECTIONS, systemRole: true });
    this.db = this.ownDb;
    this.recorder = this.recorderOn(this.ownDb);
  }

  /** Look for due deliveries now (call after committing new ones). Cheap; calls coalesce. */
  wake(): void {
    this.loop.wake();
  }

  /**
   * True while a wake makes it claim at once: running, with requests to spare. When false, the app wakes
   * the workers of other instances too.
   */
  hasCapacity(): boolean {
    return this.loop.running && this.capacity() > 0;
  }

  /**
   * How many more deliveries it may claim now. Requests under way count against the concurrency; answered
   * ones being recorded do not, up to as many again (so a slow database cannot make the recording queue
   * grow without bound).
   */
  private capacity(): number {
    const sending = this.inFlight.size - this.answered.size;
    return Math.min(this.maxConcurrency - sending, 2 * this.maxConcurrency - this.inFlight.size);
  }

  /** Resolves once nothing is being claimed or sent (tests; a newly due retry starts new work). */
  async idle(): Promise<void> {
    while (this.loop.ticking !== undefined || this.inFlight.size > 0) {
      await Promise.allSettled([this.loop.ticking, ...[...this.inFlight.values()].map((f) => f.done)]);
    }
  }

  /**
   * Stops claiming, lets attempts in flight finish for up to `graceMs` (default: the attempt timeout plus
   * 1 s), then aborts the rest: they are recorded as `interrupted` and their rows released at once, so
   * another instance retries them without waiting for the lease to expire.
   */
  async stop(options: { graceMs?: number } = {}): Promise<void> {
    await this.loop.stop();
    const graceMs = options.graceMs ?? this.options.config.webhookTimeoutMs + 1000;
    if (this.inFlight.size > 0) {
      const all = Promise.allSettled([...this.inFlight.values()].map((f) => f.done));
      if (graceMs > 0) {
        let timer: Timer | undefined;
        const graceOver = new Promise<void>((resolve) => {
          timer = this.options.clock.setTimeout(resolve, graceMs);
        });
        await Promise.race([all, graceOver]);
        timer?.cancel();
      }
      for (const flight of this.inFlight.values()) flight.abort.abort();
      await all;
    }
    this.agents.destroy();
    this.secrets.clear();
    await this.recorder.idle();
    const own = this.ownDb;
    this.ownDb = undefined;
    this.db = this.options.db;
    await own?.close();
  }

  private async tick(): Promise<void> {
    const capacity = this.capacity();
    // Full: every attempt that finishes wakes the loop, and the longest sleep still applies.
    if (capacity <= 0) return this.loop.sleep(this.maxPollMs);
    await this.useOwnConnections();
    const result = await claimDue(this.db, {
      owner: this.instanceId,
      now: this.options.clock.now(),
      leaseMs: this.leaseMs,
      limit: capacity,
      perEndpoint: this.perEndpoint,
      perTenant: this.perTenant,
      tenantIds: this.options.tenantIds,
      answeredIds: [...this.answered],
      systemConnections: this.ownDb !== undefined,
    });
    for (const delivery of result.claimed) this.launch(delivery);
    if (!this.loop.running) return;
    // Attempts finished or work was queued while claiming: claim again at once.
    if (this.loop.woken) return;
    if (result.contended) {
      // Another instance is draining the same backlog; share it instead of sleeping until the next poll.
      this.loop.sleep(CONTENDED_RETRY_MS);
      return;
    }
    // The claim's own snapshot says when the next retry or lease expiry falls due.
    const delay =
      result.nextDueAt === undefined ? this.maxPollMs : result.nextDueAt - this.options.clock.now();
    this.loop.sleep(Math.min(this.maxPollMs, Math.max(1, delay)));
  }

  private launch(delivery: ClaimedDelivery): void {
    const key = `${delivery.id}:${delivery.leaseToken}`;
    let secrets: string[];
    try {
      secrets = this.secretsOf(delivery);
    } catch (error) {
      // Nothing is sent unsigned or with a wrong signature: the row waits, leased, and is claimed again
      // when the lease expires (a key added to SVC_ENCRYPTION_KEY meanwhile makes it go).
      this.log.error(
        { err: error, deliveryId: delivery.id, endpointId: delivery.endpointId },
        'webhook worker: the endpoint secret does not decrypt',
      );
      return;
    }
    const abort = new AbortController();
    const done = this.attempt(delivery, secrets, abort.signal)
      .catch((error: unknown) => {
        // The lease stays; the row is retried once it expires.
        this.log.error(
          { err: error, deliveryId: delivery.id },
          'webhook worker: recording an attempt failed',
        );
      })
      .finally(() => {
        this.inFlight.delete(key);
        this.wake();
      });
    this.inFlight.set(key, { done, abort });
  }

  private secretsOf(delivery: ClaimedDelivery): string[] {
    const endpoint = { tenantId: delivery.tenantId, endpointId: delivery.endpointId };
    return delivery.secrets
      .map((stored) => this.secretOf(stored, endpoint))
      .filter((secret): secret is string => secret !== undefined);
  }

  private secretOf(stored: StoredSecret, endpoint: { tenantId: string; endpointId: string }) {
    if (stored.encrypted === null) return readSecret(this.options.encryption, stored, endpoint);
    // The ciphertext is bound to its row and column (secretContext), so the key names them too.
    const key = `${endpoint.tenantId}\u0000${endpoint.endpointId}\u0000${stored.column.column}\u0000${stored.encrypted}`;
    if (this.secrets.has(key)) return this.secrets.get(key);
    const secret = readSecret(this.options.encryption, stored, endpoint);
    if (this.secrets.size >= MAX_CACHED_SECRETS) this.secrets.clear();
    this.secrets.set(key, secret);
    return secret;
  }

  private async attempt(delivery: ClaimedDelivery, secrets: string[], signal: AbortSignal): Promise<void> {
    const { clock, config } = this.options;
    const span = attemptSpan(delivery);
    const headers = deliveryHeaders({
      deliveryId: delivery.id,
      eventType: delivery.eventType,
      body: delivery.body,
      secrets,
      timestampSeconds: Math.floor(clock.now() / 1000),
      traceId: delivery.traceId,
      traceFlags: delivery.traceFlags,
      traceparent: span?.traceparent,
    });
    const outcome = await sendAttempt({
      url: delivery.url,
      headers,
      body: delivery.body,
      timeoutMs: config.webhookTimeoutMs,
      clock,
      policy: this.policy,
      agents: this.agents.of(`${delivery.tenantId}\u0000${delivery.endpointId}`),
      signal,
    });
    endAttemptSpan(span, outcome);
    // The receiver's slot is free now: claims may give it the next delivery while this one is recorded.
    this.answered.add(delivery.id);
    this.wake();
    try {
      const recorded = await this.recorder.record({ claimed: delivery, outcome, now: clock.now() });
      this.options.onRecorded?.(recorded);
    } finally {
      this.answered.delete(delivery.id);
    }
  }
}
