import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import pino from 'pino';
import { createTenantOn } from '../../../../test/factories.ts';
import { testConfig } from '../../../../test/helper.ts';
import { eventually } from '../../../../test/support/eventually.ts';
import { appMigrations, MODULES } from '../../../app.ts';
import type { Config } from '../../../config.ts';
import { type Clock, ManualClock, systemClock, type Timer } from '../../../core/clock.ts';
import type { ServiceContext } from '../../../core/context.ts';
import type { Database } from '../../../core/db/database.ts';
import { GroupCommits } from '../../../core/db/group-commit.ts';
import { migrate } from '../../../core/db/migrations.ts';
import { systemTx, tenantTx } from '../../../core/db/tenant-tx.ts';
import { MemoryEventBus } from '../../../core/events/bus.ts';
import { EventStore } from '../../../core/events/store.ts';
import { AppError } from '../../../core/http/errors.ts';
import { traceFrom } from '../../../core/http/request-id.ts';
import { newId } from '../../../core/ids.ts';
import { ModuleEnablement } from '../../../core/modules/enablement.ts';
import { Workers } from '../../../core/modules/hooks.ts';
import { ModuleRegistry } from '../../../core/modules/registry.ts';
import { openEncryption } from '../../../core/secrets/encryption.ts';
import { openDatabase } from '../../../runtime.ts';
import { enqueueDeliveries, WebhookWorker, type WebhookWorkerOptions } from '../index.ts';
import { createEndpoint } from '../verbs/create-endpoint.ts';

/**
 * Test times sit a century ahead of the wall clock. On a shared PostgreSQL (DATABASE_URL) other test
 * processes may run workers too: their rows and ours are never due for each other, and every worker here
 * is also scoped to its own tenants.
 */
export const FUTURE_OFFSET_MS = 100 * 365 * 86_400_000;

/** Real timers, with `now` a century ahead. */
export const futureClock: Clock = {
  now: () => Date.now() + FUTURE_OFFSET_MS,
  setTimeout(fn, ms) {
    const handle = setTimeout(fn, ms);
    return { cancel: () => clearTimeout(handle) } satisfies Timer;
  },
};

export function manualClock(): ManualClock {
  return new ManualClock(Date.UTC(2200, 0, 1));
}

export async function openTestDb(): Promise<Database> {
  const db = await openDatabase(testConfig(), { inMemory: true });
  await migrate(db, appMigrations());
  return db;
}

/** A sandbox tenant made the way the service makes one (its owner, the default modules switched on). */
export function createTenant(db: Database): Promise<string> {
  return createTenantOn(db, 'webhook test');
}

export function webhookConfig(overrides: Partial<Config> = {}): Config {
  return testConfig({ webhookRetryScheduleMs: [20, 40, 60], webhookTimeoutMs: 30_000, ...overrides });
}

/** The verb context of a system call for `tenantId`, on a bare database; `workers` decides what a wake reaches. */
export function ctxFor(
  db: Database,
  tenantId: string,
  config: Config,
  clock: Clock = futureClock,
  workers: Workers = new Workers(),
): ServiceContext {
  return {
    config,
    db,
    clock,
    events: new EventStore(new MemoryEventBus(), clock),
    registry: new ModuleRegistry(MODULES),
    enablement: new ModuleEnablement(db, clock),
    workers,
    groupCommit: new GroupCommits(),
    encryption: openEncryption(config, systemClock),
    log: pino({ level: 'silent' }),
    tenantId,
    principal: undefined,
    requestId: newId('request', Date.now()),
    trace: traceFrom(undefined),
    origin: 'system',
  };
}

/** The same context, with the verbs' wakes reaching `worker`. */
export function wakingWith(ctx: ServiceContext, worker: WebhookWorker): ServiceContext {
  const workers = new Workers();
  workers.add('webhooks', worker);
  return { ...ctx, workers };
}

/** Stands in for the event store: writes nothing but the outbox fan-out, in a tenant transaction. */
export async function publishEvent(
  db: Database,
  tenantId: string,
  type: string,
  data: Record<string, unknown>,
  clock: Clock = futureClock,
): Promise<{ eventId: string; deliveryIds: string[] }> {
  const eventId = newId('event', clock.now());
  const deliveryIds = await tenantTx(db, { tenantId }, (tx) =>
    enqueueDeliveries(tx, { id: eventId, tenantId, type, data, createdAt: new Date(clock.now()) }),
  );
  return { eventId, deliveryIds };
}

/**
 * A new tenant with one endpoint at `url` and one `room.created` event fanned out to it: the delivery a
 * test watches (its id) and its tenant.
 */
export async function oneDelivery(
  db: Database,
  url: string,
  config: Config,
  clock: Clock = futureClock,
): Promise<{ tenantId: string; id: string }> {
  const tenantId = await createTenant(db);
  await createEndpoint(ctxFor(db, tenantId, config, clock), { url, secret: 'receiver-secret-0001' });
  const { deliveryIds } = await publishEvent(db, tenantId, 'room.created', { roomId: 'room_1' }, clock);
  return { tenantId, id: deliveryIds[0] ?? '' };
}

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  /** The raw request body bytes. */
  raw: Buffer;
  json: Record<string, unknown>;
}

export type Reply = (req: Received, res: http.ServerResponse) => void;

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  reply: Reply;
  close(): Promise<void>;
}

export const ok: Reply = (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
};

export function status(code: number, headers: Record<string, string> = {}): Reply {
  return (_req, res) => {
    res.writeHead(code, headers).end(`status ${code}`);
  };
}

const FIXTURES = path.join(import.meta.dirname, 'fixtures');
export const receiverCert = fs.readFileSync(path.join(FIXTURES, 'receiver-cert.pem'), 'utf8');
const receiverKey = fs.readFileSync(path.join(FIXTURES, 'receiver-key.pem'), 'utf8');

/** A real HTTP(S) receiver on 127.0.0.1 that records every request with its raw body. */
export async function startReceiver(
  reply: Reply = ok,
  options: { tls?: boolean; host?: string } = {},
): Promise<Receiver> {
  const receiver: Receiver = { url: '', port: 0, received: [], reply, close: async () => {} };
  const handler: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      } catch {}
      const entry = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, raw, json };
      receiver.received.push(entry);
      receiver.reply(entry, res);
    });
  };
  const server =
    options.tls === true
      ? https.createServer({ cert: receiverCert, key: receiverKey }, handler)
      : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `${options.tls === true ? 'https' : 'http'}://${options.host ?? '127.0.0.1'}:${receiver.port}/hook`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

export interface DeliveryState {
  state: string;
  attempt_count: number;
}

export async function deliveryRow(
  db: Database,
  id: string,
): Promise<DeliveryState & Record<string, unknown>> {
  const { rows } = await systemTx(db, (tx) =>
    tx.query<DeliveryState & Record<string, unknown>>('select * from webhook_deliveries where id = $1', [id]),
  );
  const row = rows[0];
  if (row === undefined) throw new Error(`no delivery ${id}`);
  return row;
}

export function waitForState(db: Database, id: string, state: string, timeoutMs?: number) {
  return eventually(
    `${id} to be ${state}`,
    async () => {
      const row = await deliveryRow(db, id);
      return row.state === state ? row : undefined;
    },
    { timeoutMs },
  );
}

export function startWorker(
  options: Omit<WebhookWorkerOptions, 'config' | 'encryption'> &
    Partial<Pick<WebhookWorkerOptions, 'encryption'>> & { config?: Config },
): WebhookWorker {
  const config = options.config ?? webhookConfig();
  const worker = new WebhookWorker({ encryption: openEncryption(config, systemClock), ...options, config });
  worker.start();
  return worker;
}

/** Every attempt of a delivery, oldest first. */
export async function attemptsOf(db: Database, deliveryId: string): Promise<AttemptRecord[]> {
  const { rows } = await systemTx(db, (tx) =>
    tx.query<AttemptRecord>(
      `select attempt, cycle, started_at, duration_ms, status_code, error_class, error_message,
              response_body_excerpt, worker
         from webhook_attempts where delivery_id = $1 order by attempt`,
      [deliveryId],
    ),
  );
  return rows;
}

export interface AttemptRecord {
  attempt: number;
  cycle: number;
  started_at: Date;
  duration_ms: number | null;
  status_code: number | null;
  error_class: string | null;
  error_message: string | null;
  response_body_excerpt: string | null;
  worker: string | null;
}

/** Milliseconds of a timestamptz column value (both drivers return Date). */
export function ms(value: unknown): number {
  if (value instanceof Date) return value.getTime();
  throw new Error(`not a timestamp: ${String(value)}`);
}

/** For `assert.rejects`: the refusal is an AppError with this code. */
export function isCode(code: string) {
  return (error: unknown) => error instanceof AppError && error.code === code;
}
