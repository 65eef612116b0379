import type { Config } from '../../../config.ts';
import type { Clock } from '../../../core/clock.ts';
import type { Database } from '../../../core/db/database.ts';
import type { SecretEncryption } from '../../../core/secrets/encryption.ts';
import type { EmitTenantEvent } from '../types.ts';
import type { Resolver } from './lookup.ts';
import type { RecordResult } from './record.ts';

export interface WorkerLog {
  error(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface WebhookWorkerOptions {
  db: Database;
  /** Opens the endpoints' stored secrets (the app's `services.encryption`). */
  encryption: SecretEncryption;
  config: Pick<
    Config,
    | 'env'
    | 'webhookAllowedHosts'
    | 'webhookRetryScheduleMs'
    | 'webhookTimeoutMs'
    | 'webhookTenantConcurrency'
    | 'webhookEndpointConcurrency'
    | 'webhookCircuitTimeouts'
    | 'webhookCircuitOpenMs'
  >;
  clock: Clock;
  /** Writes `webhook.delivery.dead_lettered` through the event store (see EmitTenantEvent). */
  emitTenantEvent?: EmitTenantEvent;
  /** [0, 1) for retry jitter; default Math.random. */
  random?: () => number;
  log?: WorkerLog;
  /** Lease owner name; default host:pid:random. */
  instanceId?: string;
  /** Attempts in flight at once in this worker (default 512; 64 on the embedded database). */
  maxConcurrency?: number;
  /**
   * Live leases per endpoint, across workers (default SVC_WEBHOOK_ENDPOINT_CONCURRENCY, else 32; 8 on the
   * embedded database): one slow receiver cannot take every slot.
   */
  perEndpointConcurrency?: number;
  /**
   * Live leases per tenant, across workers (default SVC_WEBHOOK_TENANT_CONCURRENCY, else 128; 16 on the
   * embedded database): one tenant's hanging receivers leave the rest of the worker to the others.
   */
  perTenantConcurrency?: number;
  /**
   * A lease lasts the attempt timeout plus this (default LEASE_MARGIN_MS): time to record the outcome once
   * the request has ended. When a worker dies holding leases, another one takes its deliveries over that
   * long after they were claimed.
   */
  leaseMarginMs?: number;
  /**
   * Longest sleep without a wake (default 5 s). New deliveries wake a worker at once, on any instance
   * (`Workers.wake`); this poll finds what a lost wake or a crashed instance left behind.
   */
  maxPollMs?: number;
  /** Told each attempt's recorded result (the app's metrics). */
  onRecorded?: (result: RecordResult) => void;
  /** DNS, injectable for tests; the address policy applies to whatever it answers. */
  resolve?: Resolver;
  /** Serve only these tenants (dedicated workers, test isolation); default every tenant. */
  tenantIds?: readonly string[];
  /** Extra trust for https receivers (tests with a self-signed receiver). */
  tls?: { ca?: string | Buffer };
}
