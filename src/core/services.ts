import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Principal } from './auth/principal.ts';
import type { Clock } from './clock.ts';
import type { Origin } from './contexts.ts';
import type { Database } from './db/database.ts';
import type { GroupCommits } from './db/group-commit.ts';
import type { EventStore } from './events/store.ts';
import type { TraceContext } from './http/request-id.ts';
import type { ModuleEnablement } from './modules/enablement.ts';
import type { Workers } from './modules/workers.ts';
import type { ServiceMetrics } from './ops/metrics/service-metrics.ts';
import type { RealtimeBackplane } from './realtime/index.ts';
import type { SecretEncryption } from './secrets/encryption.ts';

/**
 * Long-lived services the app is built from; passed down explicitly, never read from globals.
 *
 * `registry` (the modules, from app.ts's list) is declared by modules/registry.ts, which adds it to this
 * interface: the registry holds manifests, whose verbs and hooks take these services, so naming it here
 * would make this file and every file a manifest reaches depend on each other.
 */
export interface Services {
  config: Config;
  db: Database;
  clock: Clock;
  events: EventStore;
  enablement: ModuleEnablement;
  /** Pub/sub and presence across instances; absent only where an app is built without realtime. */
  realtime?: RealtimeBackplane;
  /** This instance's background workers, by module: `workers.wake(name)` after committing work for one. */
  workers: Workers;
  /** Keyed write queues (group commit) for hot keys: a room's messages, an auction's bids. */
  groupCommit: GroupCommits;
  /**
   * Encryption of secrets the service stores and must read back (`SVC_ENCRYPTION_KEY`); a module that
   * stores one declares its column in `encryptedColumns` and uses `secretContext` for each value.
   */
  encryption: SecretEncryption;
  /** This app's metrics when they are on (SVC_METRICS_PORT): `ctx.metrics?.bids.inc(...)`. */
  metrics?: ServiceMetrics;
}

/** One call of a verb: who, for which tenant, from where. */
export interface ServiceContext extends Services {
  log: FastifyBaseLogger;
  tenantId: string;
  principal: Principal | undefined;
  requestId: string;
  trace: TraceContext;
  origin: Origin;
}

/** What a verb is called for, beside the app's services: who, for which tenant, from where. */
export type CallParts = Omit<ServiceContext, keyof Services>;

/**
 * A verb's context: the app's services, listed field by field, with the call's parts (and another clock
 * when given). Not `{ ...services, log, tenantId, ... }`: on Node 20 (V8 11.3), properties added after a
 * spread leave V8's fast path, and such a context cost ~6 µs to build, ~0.03 µs this way; one is built
 * for every request, socket frame and worker task. (The type below makes a new service a compile error
 * here until it is listed.)
 */
export function serviceContext(services: Services, call: CallParts, clock = services.clock): ServiceContext {
  const context: { [K in keyof Required<ServiceContext>]: ServiceContext[K] } = {
    config: services.config,
    db: services.db,
    clock,
    events: services.events,
    registry: services.registry,
    enablement: services.enablement,
    realtime: services.realtime,
    workers: services.workers,
    groupCommit: services.groupCommit,
    encryption: services.encryption,
    metrics: services.metrics,
    log: call.log,
    tenantId: call.tenantId,
    principal: call.principal,
    requestId: call.requestId,
    trace: call.trace,
    origin: call.origin,
  };
  return context;
}
