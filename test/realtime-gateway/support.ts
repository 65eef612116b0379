import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { appMigrations, buildApp, MODULES } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import { type Clock, systemClock } from '../../src/core/clock.ts';
import type { Database } from '../../src/core/db/database.ts';
import { migrate } from '../../src/core/db/migrations.ts';
import type { ModuleManifest } from '../../src/core/modules/manifest.ts';
import { createRealtimeBackplane, type RealtimeBackplane } from '../../src/core/realtime/index.ts';
import { MemoryPresence } from '../../src/core/realtime/memory-presence.ts';
import { MemoryPresenceHub } from '../../src/core/realtime/memory-presence-hub.ts';
import { MemoryBroker, MemoryPubSub } from '../../src/core/realtime/memory-pubsub.ts';
import { chatRealtime } from '../../src/modules/chat/realtime/index.ts';
import type { ChatRealtimeOptions } from '../../src/modules/chat/realtime/options.ts';
import { openDatabase } from '../../src/runtime.ts';
import type { GatewayLimits } from '../../src/surfaces/realtime/index.ts';
import { testConfig } from '../helper.ts';
import { deleteKeys } from '../realtime/backends.ts';

export const redisUrl = process.env.REDIS_URL;

/** One deployment's backplane: every instance made from it shares one Redis prefix, or one in-memory broker and hub. */
export interface Deployment {
  kind: 'memory' | 'redis';
  backplane(): Promise<RealtimeBackplane>;
  cleanup(): Promise<void>;
}

/**
 * With REDIS_URL: real Redis under a prefix of its own. Without: the in-memory broker and presence hub the
 * Redis implementations are contract-tested against, shared by the instances as one Redis would be.
 */
export function deployment(presenceTtlMs = 30_000): Deployment {
  if (redisUrl !== undefined) {
    const prefix = `svc-test:${randomUUID()}:`;
    return {
      kind: 'redis',
      backplane: () =>
        createRealtimeBackplane({ redisUrl }, systemClock, { redisPrefix: prefix, presenceTtlMs }),
      cleanup: () => deleteKeys(redisUrl, prefix),
    };
  }
  const broker = new MemoryBroker();
  const hub = new MemoryPresenceHub();
  return {
    kind: 'memory',
    async backplane() {
      const instanceId = `inst_${randomUUID()}`;
      const pubsub = new MemoryPubSub(broker);
      const presence = new MemoryPresence({ instanceId, hub, clock: systemClock, ttlMs: presenceTtlMs });
      presence.start();
      return {
        kind: 'memory',
        instanceId,
        pubsub,
        presence,
        ready: async () => {},
        connected: () => true,
        close: async () => {
          await Promise.all([presence.close(), pubsub.close()]);
        },
      };
    },
    cleanup: async () => {},
  };
}

export interface Instance {
  app: Awaited<ReturnType<typeof buildApp>>;
  db: Database;
  config: Config;
  backplane: RealtimeBackplane;
  /** ws://127.0.0.1:<port>/v1/realtime */
  wsUrl: string;
  close(): Promise<void>;
}

export interface InstanceOptions {
  db?: Database;
  deployment?: Deployment;
  limits?: Partial<GatewayLimits>;
  /** Chat's own realtime knobs (its replay pages, how long an early change waits). */
  chat?: Partial<ChatRealtimeOptions>;
  /** Settings as the environment would give them (e.g. small connection caps). */
  config?: Partial<Config>;
  /** The app's clock (default the system's); a ManualClock lets a test move token expiry along. */
  clock?: Clock;
  /** The modules, when a test sets a module's own realtime knobs (as `chat` does for chat's). */
  modules?: readonly ModuleManifest[];
}

/** The chat module with its realtime knobs set: its hooks as the manifest builds them, its realtime part redone. */
function chatWith(options: Partial<ChatRealtimeOptions>): (m: ModuleManifest) => ModuleManifest {
  return (m) => {
    const hooks = m.hooks;
    if (m.name !== 'chat' || hooks === undefined) return m;
    return { ...m, hooks: (host) => ({ ...hooks(host), realtime: chatRealtime(options) }) };
  };
}

/** The app as production builds it, listening on a loopback port, with a backplane from `deployment`. */
export async function startInstance(options: InstanceOptions = {}): Promise<Instance> {
  const config = testConfig(options.config);
  const db = options.db ?? (await openDatabase(config, { inMemory: true }));
  const ownDeployment = options.deployment === undefined ? deployment() : undefined;
  const backplane = await (options.deployment ?? ownDeployment)?.backplane();
  if (backplane === undefined) throw new Error('no backplane');
  await migrate(db, appMigrations());
  const app = await buildApp({
    config,
    db,
    clock: options.clock ?? systemClock,
    // On a shared PostgreSQL a worker here would claim other test files' webhook deliveries.
    workers: false,
    ...(options.chat === undefined ? {} : { modules: MODULES.map(chatWith(options.chat)) }),
    ...(options.modules === undefined ? {} : { modules: options.modules }),
    realtime: { backplane, ...(options.limits === undefined ? {} : { limits: options.limits }) },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return {
    app,
    db,
    config,
    backplane,
    wsUrl: `ws://127.0.0.1:${port}/v1/realtime`,
    async close() {
      await app.close();
      await ownDeployment?.cleanup();
      if (options.db === undefined) await db.close();
    },
  };
}
