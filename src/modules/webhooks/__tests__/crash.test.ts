import assert from 'node:assert/strict';
import fs from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { eventually } from '../../../../test/support/eventually.ts';
import { ok, type Receiver, type Reply, startReceiver, status } from './support.ts';
import {
  type Api,
  allDeliveries,
  apiClient,
  createEndpoint,
  type DeliveryView,
  deliveryIdOf,
  killLeftovers,
  receiptCounts,
  type ScratchDatabase,
  type ServerProcess,
  scratchDatabase,
  startServer,
} from './system-support.ts';

/**
 * The real `svc` process is SIGKILLed while webhook deliveries are pending (queued behind a slow receiver's
 * concurrency cap, waiting for a retry) and in flight (held open by the slow receiver), then restarted on the
 * same data: every committed event must end `delivered` (received at least once) or `dead_lettered` at every
 * endpoint it matched. Leases of the killed process expire after the attempt timeout plus the lease margin,
 * so the wait after the restart is bounded generously; nothing here measures speed.
 */

const SECRET = 'crash-test-secret-0001';
const EVENT_TYPE = 'app.crash.happened';
/** Short delays so failing deliveries finish their cycle within the test. */
const RETRY_SCHEDULE_MS = '50,100,200';
/** Long enough that a request held by the slow receiver is still in flight when the server is killed. */
const TIMEOUT_MS = '8000';
const FLAKY_FAILURES = 2;
const MIN_EVENTS_BEFORE_KILL = 40;
const MIN_HELD_BEFORE_KILL = 3;

interface SlowReceiver {
  receiver: Receiver;
  /** Requests held open, with whether their connection was still open when looked at. */
  held: { deliveryId: string; res: http.ServerResponse; closed: boolean }[];
  answer(): void;
}

/** Holds every request open (in flight at the sender) until `answer()`; then answers 200 at once. */
async function slowReceiver(): Promise<SlowReceiver> {
  const held: SlowReceiver['held'] = [];
  let holding = true;
  const reply: Reply = (req, res) => {
    if (!holding) return ok(req, res);
    const entry = { deliveryId: deliveryIdOf(req), res, closed: false };
    res.on('close', () => {
      entry.closed = true;
    });
    held.push(entry);
  };
  const receiver = await startReceiver(reply);
  return {
    receiver,
    held,
    answer() {
      holding = false;
      for (const entry of held) entry.res.destroy();
    },
  };
}

/** Fails the first `failures` attempts of each delivery with a 500, then answers 200. */
function flaky(failures: number): Reply {
  const seen = new Map<string, number>();
  return (req, res) => {
    const id = deliveryIdOf(req);
    const n = (seen.get(id) ?? 0) + 1;
    seen.set(id, n);
    (n <= failures ? status(500) : ok)(req, res);
  };
}

/** POSTs events, a few at a time, until told to stop or the server stops answering. */
function startPublishing(api: Api) {
  const acknowledged: string[] = [];
  let stopping = false;
  let sent = 0;
  const lane = async () => {
    while (!stopping) {
      const n = sent++;
      try {
        const res = await api.request<{ id: string }>('POST', '/v1/events', {
          type: EVENT_TYPE,
          data: { n },
        });
        if (res.status !== 201) throw new Error(`POST /v1/events: ${res.status} ${res.text}`);
        acknowledged.push(res.body.id);
      } catch (error) {
        if (stopping) return;
        throw error;
      }
    }
  };
  const lanes = Promise.all([lane(), lane(), lane(), lane()]);
  return {
    acknowledged,
    /** No new requests; those under way may still fail (the server dies under them) and are ignored. */
    halt() {
      stopping = true;
    },
    /** Settles once every lane ended; rejects when a request failed before `halt`. */
    done: lanes,
  };
}

async function listEventIds(api: Api): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const res = await api.request<{ data: { id: string }[]; nextCursor: string | null }>(
      'GET',
      `/v1/events?type=app.crash.*&limit=100${query}`,
    );
    if (res.status !== 200) throw new Error(`GET /v1/events: ${res.status} ${res.text}`);
    ids.push(...res.body.data.map((e) => e.id));
    cursor = res.body.nextCursor;
  } while (cursor !== null);
  return ids;
}

describe(`svc killed mid-delivery (${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded database'})`, () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-webhook-crash-'));
  let scratch: ScratchDatabase | undefined;
  const servers: ServerProcess[] = [];
  const receivers: Receiver[] = [];
  after(async () => {
    killLeftovers();
    await Promise.all(receivers.map((r) => r.close()));
    await scratch?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('after SIGKILL and a restart every event ends delivered or dead_lettered at every endpoint', {
    timeout: 300_000,
  }, async (t) => {
    scratch = await scratchDatabase('crash');
    const env: Record<string, string> = {
      SVC_ENV: 'development',
      SVC_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      SVC_WEBHOOK_RETRY_SCHEDULE_MS: RETRY_SCHEDULE_MS,
      SVC_WEBHOOK_TIMEOUT_MS: TIMEOUT_MS,
      ...(scratch === undefined ? {} : { DATABASE_URL: scratch.url }),
    };

    const healthyA = await startReceiver(ok);
    const healthyB = await startReceiver(ok);
    const slow = await slowReceiver();
    const flakyOne = await startReceiver(flaky(FLAKY_FAILURES));
    const failing = await startReceiver(status(503));
    receivers.push(healthyA, healthyB, slow.receiver, flakyOne, failing);

    const first = await startServer(env);
    servers.push(first);
    const { apiKey } = JSON.parse(fs.readFileSync(path.join(dataDir, 'dev-credentials.json'), 'utf8')) as {
      apiKey: string;
    };
    const api1 = apiClient(first.baseUrl, apiKey);
    const endpoints = new Map<string, { receiver: Receiver; name: string }>();
    for (const [name, receiver] of [
      ['healthy A', healthyA],
      ['healthy B', healthyB],
      ['slow', slow.receiver],
      ['flaky', flakyOne],
      ['failing', failing],
    ] as const) {
      const id = await createEndpoint(api1, {
        url: receiver.url,
        secret: SECRET,
        eventTypes: ['app.crash.*'],
      });
      endpoints.set(id, { receiver, name });
    }
    const slowId = [...endpoints].find(([, e]) => e.name === 'slow')?.[0] ?? '';

    // Publish until enough events are committed and the slow receiver holds attempts open, then kill.
    const publisher = startPublishing(api1);
    await Promise.race([
      publisher.done.then(() => {
        throw new Error('publishing ended early');
      }),
      eventually(
        () =>
          `${MIN_EVENTS_BEFORE_KILL} events and ${MIN_HELD_BEFORE_KILL} held attempts (${publisher.acknowledged.length} events, ${slow.held.length} held)`,
        () =>
          publisher.acknowledged.length >= MIN_EVENTS_BEFORE_KILL && slow.held.length >= MIN_HELD_BEFORE_KILL
            ? true
            : undefined,
        { timeoutMs: 120_000, stepMs: 20 },
      ),
    ]);
    const pendingBeforeKill = (await allDeliveries(api1, slowId)).filter((d) => d.state === 'pending');
    const inFlightAtKill = slow.held.filter((h) => !h.closed).map((h) => h.deliveryId);
    publisher.halt();
    await first.kill();
    await publisher.done;
    t.diagnostic(
      `killed after ${publisher.acknowledged.length} acknowledged events; slow endpoint: ${pendingBeforeKill.length} pending, ` +
        `${inFlightAtKill.length} attempts in flight`,
    );
    assert.ok(pendingBeforeKill.length > 0, 'deliveries were pending when the server was killed');
    assert.ok(inFlightAtKill.length > 0, 'attempts were in flight when the server was killed');
    slow.answer();

    const second = await startServer(env);
    servers.push(second);
    const api2 = apiClient(second.baseUrl, apiKey);

    const eventIds = await listEventIds(api2);
    const committed = new Set(eventIds);
    for (const id of publisher.acknowledged)
      assert.ok(committed.has(id), `acknowledged event ${id} survived`);

    // Bounded: the killed process's leases expire after the timeout plus the lease margin.
    const final = await eventually(
      () => `every delivery of ${eventIds.length} events to end delivered or dead_lettered`,
      async () => {
        const byEndpoint = new Map<string, DeliveryView[]>();
        for (const id of endpoints.keys()) {
          const list = await allDeliveries(api2, id);
          if (list.length < eventIds.length || list.some((d) => d.state === 'pending')) return undefined;
          byEndpoint.set(id, list);
        }
        return byEndpoint;
      },
      { timeoutMs: 180_000, stepMs: 250 },
    );

    for (const [endpointId, { receiver, name }] of endpoints) {
      const deliveries = final.get(endpointId) ?? [];
      assert.deepEqual(
        deliveries.map((d) => d.eventId).sort(),
        [...eventIds].sort(),
        `${name}: exactly one delivery per committed event`,
      );
      const counts = receiptCounts(receiver);
      const known = new Set(deliveries.map((d) => d.id));
      for (const id of counts.keys())
        assert.ok(known.has(id), `${name}: received ${id}, a delivery it lists`);
      for (const d of deliveries) {
        if (d.state === 'delivered') {
          assert.ok((counts.get(d.id) ?? 0) >= 1, `${name}: delivered ${d.id} was received`);
        }
      }
      const states = deliveries.map((d) => d.state);
      if (name === 'failing') {
        assert.ok(
          states.every((s) => s === 'dead_lettered'),
          `${name}: every delivery dead-lettered`,
        );
      } else if (name !== 'slow') {
        assert.ok(
          states.every((s) => s === 'delivered'),
          `${name}: every delivery delivered`,
        );
      }
      const duplicates = [...counts.values()].filter((n) => n > 1).length;
      t.diagnostic(
        `${name}: ${states.filter((s) => s === 'delivered').length} delivered, ` +
          `${states.filter((s) => s === 'dead_lettered').length} dead_lettered, ${receiver.received.length} requests, ` +
          `${duplicates} deliveries received more than once`,
      );
    }

    // The attempts cut off by the kill are on record as interrupted, and were retried to a result.
    for (const id of inFlightAtKill) {
      const res = await api2.request<{ state: string; attempts: { errorClass: string | null }[] }>(
        'GET',
        `/v1/webhook-deliveries/${id}`,
      );
      assert.equal(res.status, 200, res.text);
      assert.notEqual(res.body.state, 'pending');
      assert.ok(
        res.body.attempts.some((a) => a.errorClass === 'interrupted'),
        `${id}: the attempt in flight at the kill is recorded as interrupted (${JSON.stringify(res.body.attempts)})`,
      );
    }

    second.child.kill('SIGTERM');
    const exit = await second.exited;
    assert.equal(exit.code, 0, second.output());
  });
});
