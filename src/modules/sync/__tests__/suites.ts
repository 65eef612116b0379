import type { WebsocketProvider } from 'y-websocket';
import type * as Y from 'yjs';
import { testConfig } from '../../../../test/helper.ts';
import { deployment } from '../../../../test/realtime-gateway/support.ts';
import { suiteFixture } from '../../../../test/support/suite.ts';
import { openDatabase } from '../../../runtime.ts';
import type { SyncLimits } from '../limits.ts';
import {
  provider,
  type SessionOptions,
  type SyncInstance,
  type SyncInstanceOptions,
  type SyncTenant,
  startSyncInstance,
  syncToken,
  tenantWithRoom,
} from './support.ts';

/** The stock providers a suite opened: each is destroyed, with its document, when the suite ends. */
export class Providers {
  private readonly opened: WebsocketProvider[] = [];

  /** A stock provider of `instance`'s document `room` (`<roomId>` or `<roomId>/<docName>`). */
  open(instance: Pick<SyncInstance, 'syncUrl'>, room: string, token: string, doc?: Y.Doc): WebsocketProvider {
    const p = provider(instance, room, token, doc);
    this.opened.push(p);
    return p;
  }

  /** The providers still connected, in the order they were opened. */
  connected(): WebsocketProvider[] {
    return this.opened.filter((p) => p.wsconnected);
  }

  destroyAll(): void {
    for (const p of this.opened.splice(0)) {
      p.destroy();
      p.doc.destroy();
    }
  }
}

export interface SyncSuiteOptions extends SyncInstanceOptions {
  /** Tenants with a room each, made before the tests (default 1). */
  tenants?: number;
  /** False: nothing starts (for a file whose tests are skipped without Redis). Default true. */
  enabled?: boolean;
}

/** One sync instance for a file's (or a describe's) tests, with its tenants and the providers they open. */
export interface SyncSuite {
  readonly t: SyncInstance;
  /** The first tenant (with its room). */
  readonly tenant: SyncTenant;
  readonly tenants: readonly SyncTenant[];
  /** A stock provider of this instance, destroyed after the suite. */
  open(room: string, token: string, doc?: Y.Doc): WebsocketProvider;
  /** A session token of the first tenant's API key (POST /v1/runtime/connect). */
  token(options?: SessionOptions): Promise<string>;
  readonly providers: Providers;
  /** Closes the instance before the suite ends (a test of what its clients see at shutdown). */
  shutdown(): Promise<void>;
}

/**
 * Starts a sync instance (and `tenants` tenants with a room each) before the suite's tests; after them,
 * destroys every provider the suite opened and closes the instance.
 */
export function syncSuite(options: SyncSuiteOptions = {}): SyncSuite {
  const { tenants: count = 1, enabled = true, ...instance } = options;
  const state = suiteFixture(
    'syncSuite',
    async () => {
      if (!enabled) return undefined;
      const t = await startSyncInstance(instance);
      const tenants: SyncTenant[] = [];
      for (let i = 0; i < count; i++) tenants.push(await tenantWithRoom(t));
      return { t, tenants, providers: new Providers(), open: true };
    },
    async (opened) => {
      opened?.providers.destroyAll();
      if (opened?.open === true) await opened.t.close();
    },
  );
  const started = () => {
    const value = state();
    if (value === undefined) throw new Error('syncSuite: this suite was not enabled');
    return value;
  };
  return {
    get t() {
      return started().t;
    },
    get tenants() {
      return started().tenants;
    },
    get tenant() {
      const [first] = started().tenants;
      if (first === undefined) throw new Error('syncSuite was asked for no tenants');
      return first;
    },
    get providers() {
      return started().providers;
    },
    open(room, token, doc) {
      return started().providers.open(started().t, room, token, doc);
    },
    token(session) {
      return syncToken(started().t, this.tenant.apiKey, session);
    },
    async shutdown() {
      const value = started();
      value.open = false;
      await value.t.close();
    },
  };
}

/** Two instances on one database (each its own pool with DATABASE_URL) and one backplane. */
export interface TwoInstances {
  readonly a: SyncInstance;
  readonly b: SyncInstance;
  /** A stock provider of instance `on`, destroyed after the suite. */
  open(on: SyncInstance, room: string, token: string): WebsocketProvider;
}

export function twoInstancesSuite(limits: Partial<SyncLimits>): TwoInstances {
  const state = suiteFixture(
    'twoInstancesSuite',
    async () => {
      const shared = deployment();
      const a = await startSyncInstance({ deployment: shared, limits });
      const config = testConfig();
      const ownDb = config.databaseUrl === undefined ? undefined : await openDatabase(config);
      const b = await startSyncInstance({ deployment: shared, db: ownDb ?? a.db, limits });
      return { shared, a, b, ownDb, providers: new Providers() };
    },
    async ({ shared, a, b, ownDb, providers }) => {
      providers.destroyAll();
      await b.close();
      await a.close();
      await ownDb?.close();
      await shared.cleanup();
    },
  );
  return {
    get a() {
      return state().a;
    },
    get b() {
      return state().b;
    },
    open(on, room, token) {
      return state().providers.open(on, room, token);
    },
  };
}
