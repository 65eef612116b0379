import { eventually } from '../../../../test/support/eventually.ts';
import { suiteFixture } from '../../../../test/support/suite.ts';
import type { Config } from '../../../config.ts';
import type { Clock } from '../../../core/clock.ts';
import type { ServiceContext } from '../../../core/context.ts';
import type { Database } from '../../../core/db/database.ts';
import type { WebhookWorker, WebhookWorkerOptions } from '../index.ts';
import {
  type AttemptRecord,
  attemptsOf,
  createTenant,
  ctxFor,
  deliveryRow,
  futureClock,
  oneDelivery,
  openTestDb,
  publishEvent,
  type Receiver,
  type Reply,
  startReceiver,
  startWorker,
  waitForState,
  webhookConfig,
} from './support.ts';

/** The signing secret the tests' endpoints are made with. */
export const SECRET = 'receiver-secret-0001';

/** What a test may set on the worker beside its database, clock, config and tenants. */
type WorkerExtras = Partial<Omit<WebhookWorkerOptions, 'db' | 'clock' | 'config' | 'tenantIds'>>;
/** A worker's options on the suite's database: `startWorker`'s, the database left out and the clock optional. */
type WorkerOptions = Omit<Parameters<typeof startWorker>[0], 'db' | 'clock'> & { clock?: Clock };

/** What the webhook suites open once for a describe: a database of their own, and helpers bound to it. */
export interface WebhookSuite {
  readonly db: Database;
  /** A new tenant and the verb context of a system call for it. */
  tenant(config?: Config, clock?: Clock): Promise<{ tenantId: string; ctx: ServiceContext }>;
  /** A new tenant with one endpoint at `url` and one `room.created` event fanned out to it. */
  delivery(url: string, config: Config, clock?: Clock): Promise<{ tenantId: string; id: string }>;
  /** An event fanned out to the tenant's endpoints (see `publishEvent`): its id and its deliveries' ids. */
  publish(
    tenantId: string,
    type: string,
    data: Record<string, unknown>,
    clock?: Clock,
  ): ReturnType<typeof publishEvent>;
  /** A started worker on the suite's database, on `futureClock` unless `options` give a clock. */
  worker(options: WorkerOptions): WebhookWorker;
  /** The delivery's row now. */
  row(id: string): ReturnType<typeof deliveryRow>;
  /** The delivery's row once it is `state`. */
  waitFor(id: string, state: string, timeoutMs?: number): ReturnType<typeof waitForState>;
  /** The delivery's attempts, oldest first. */
  attempts(id: string): Promise<AttemptRecord[]>;
  /**
   * Runs a worker for `tenantId` (real timers, a century ahead, `worker`'s options on top) until delivery
   * `id` is `state` (by default: until it leaves `pending`), stops it and answers the delivery's row.
   */
  settle(
    tenantId: string,
    id: string,
    config: Config,
    options?: { state?: string; worker?: WorkerExtras },
  ): Promise<Awaited<ReturnType<typeof deliveryRow>>>;
  /**
   * A delivery to an endpoint accepted under the lenient test config, tried by a worker under `config`
   * until it leaves `pending`: its id and its attempts.
   */
  deliverOnce(
    url: string,
    config: Config,
    worker?: WorkerExtras,
  ): Promise<{ id: string; attempts: AttemptRecord[] }>;
}

/**
 * Opens a webhook test database before the describe's tests and closes it after them:
 *
 *     describe('webhook ...', () => {
 *       const s = webhookSuite();
 *       test('...', async () => { const { tenantId, ctx } = await s.tenant(); ... });
 *     });
 */
export function webhookSuite(): WebhookSuite {
  const db = suiteFixture('webhook test database', openTestDb, (opened) => opened.close());
  return {
    get db() {
      return db();
    },
    async tenant(config = webhookConfig(), clock = futureClock) {
      const tenantId = await createTenant(db());
      return { tenantId, ctx: ctxFor(db(), tenantId, config, clock) };
    },
    delivery(url, config, clock = futureClock) {
      return oneDelivery(db(), url, config, clock);
    },
    publish: (tenantId, type, data, clock) => publishEvent(db(), tenantId, type, data, clock),
    worker: (options) => startWorker({ db: db(), clock: futureClock, ...options }),
    row: (id) => deliveryRow(db(), id),
    waitFor: (id, state, timeoutMs) => waitForState(db(), id, state, timeoutMs),
    attempts: (id) => attemptsOf(db(), id),
    async settle(tenantId, id, config, options = {}) {
      const worker = this.worker({ config, tenantIds: [tenantId], ...options.worker });
      try {
        if (options.state !== undefined) return await this.waitFor(id, options.state);
        return await eventually(`${id} to leave pending`, async () => {
          const row = await this.row(id);
          return row.state === 'pending' ? undefined : row;
        });
      } finally {
        await worker.stop();
      }
    },
    async deliverOnce(url, config, worker = {}) {
      const { tenantId, id } = await oneDelivery(db(), url, webhookConfig());
      await this.settle(tenantId, id, config, { worker });
      return { id, attempts: await this.attempts(id) };
    },
  };
}

/** A receiver listening for the describe's tests, closed after them. */
export function suiteReceiver(reply?: Reply, options?: { tls?: boolean; host?: string }): () => Receiver {
  return suiteFixture(
    'webhook receiver',
    () => startReceiver(reply, options),
    (receiver) => receiver.close(),
  );
}
