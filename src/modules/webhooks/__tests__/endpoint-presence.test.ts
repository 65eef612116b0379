import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eventually } from '../../../../test/support/eventually.ts';
import { systemClock } from '../../../core/clock.ts';
import type { Database } from '../../../core/db/database.ts';
import { tenantRead } from '../../../core/db/tenant-tx.ts';
import { MemoryEventBus } from '../../../core/events/bus.ts';
import { EventBatch, EventStore } from '../../../core/events/store.ts';
import { EndpointPresence, hasEnabledEndpoints } from '../endpoint-presence.ts';
import { createEndpoint, webhookOutbox } from '../index.ts';
import { webhookSuite } from './suite.ts';

const TRACE = {
  traceId: 'ab'.repeat(16),
  spanId: 'cd'.repeat(8),
  requestId: 'req_presence',
  origin: 'api' as const,
};

/** The app's event store with the webhooks outbox, as one instance has it; records the statements it runs. */
function instance(db: Database) {
  const presence = new EndpointPresence((tenantId) => hasEnabledEndpoints(db, tenantId), systemClock);
  const store = new EventStore(new MemoryEventBus(), systemClock, () => [webhookOutbox(() => {}, presence)]);
  /** Writes one event of `tenantId` as one statement (as tenantWrite does); the SQL of every attempt. */
  const write = async (tenantId: string, type: string) => {
    const statements: string[] = [];
    const batch = new EventBatch();
    await store.writeWith(
      tenantId,
      [{ type, data: { n: 1 }, trace: TRACE }],
      undefined,
      (sql, params) => {
        statements.push(sql);
        return tenantRead(db, { tenantId }, sql, params);
      },
      batch,
      true,
    );
    for (const followUp of batch.followUps) followUp();
    const [event] = batch.events;
    assert.ok(event);
    return { eventId: event.id, statements };
  };
  return { presence, write };
}

describe('webhook outbox: tenants known to have no endpoint', () => {
  const s = webhookSuite();

  const deliveriesOf = async (eventId: string) =>
    (
      await s.db.query<{ endpoint_id: string }>(
        'select endpoint_id from webhook_deliveries where event_id = $1',
        [eventId],
      )
    ).rows.map((r) => r.endpoint_id);
  const eventRows = async (eventId: string) =>
    (await s.db.query('select 1 from events where id = $1', [eventId])).rows.length;

  test('their events carry no fan-out, and an endpoint made elsewhere still gets the next one', async () => {
    const { tenantId, ctx } = await s.tenant();
    const a = instance(s.db);

    // Not known yet: the whole fan-out goes with the event; it queued nothing, so the tenant is looked up.
    const first = await a.write(tenantId, 'room.created');
    assert.match(first.statements[0] ?? '', /insert into webhook_deliveries/);
    await eventually('the tenant known to have no endpoint', () => a.presence.none(tenantId));

    const light = await a.write(tenantId, 'room.created');
    assert.equal(light.statements.length, 1);
    assert.doesNotMatch(light.statements[0] ?? '', /insert into webhook_deliveries/);
    assert.match(light.statements[0] ?? '', /webhook_endpoints_appeared/);

    // Another instance adds an endpoint; this one has not heard of it.
    const endpoint = await createEndpoint(ctx, {
      url: 'http://127.0.0.1:9/hook',
      secret: 'a-secret-of-at-least-16',
      eventTypes: null,
    });
    const next = await a.write(tenantId, 'room.created');
    assert.equal(
      next.statements.length,
      2,
      'the check failed the statement, which ran again with the fan-out',
    );
    assert.match(next.statements[1] ?? '', /insert into webhook_deliveries/);
    assert.deepEqual(await deliveriesOf(next.eventId), [endpoint.id]);
    assert.equal(await eventRows(next.eventId), 1, 'the failed statement left nothing behind');
    assert.equal(a.presence.none(tenantId), false);

    // Nothing was lost before the endpoint existed, and nothing is owed for those events.
    assert.deepEqual(await deliveriesOf(light.eventId), []);
    assert.equal(await eventRows(light.eventId), 1);
  });

  test('an event written inside a transaction always carries the fan-out', async () => {
    const { tenantId } = await s.tenant();
    const a = instance(s.db);
    await a.write(tenantId, 'room.created');
    await eventually('the tenant known to have no endpoint', () => a.presence.none(tenantId));
    const store = new EventStore(new MemoryEventBus(), systemClock, () => [
      webhookOutbox(() => {}, a.presence),
    ]);
    const statements: string[] = [];
    await s.db.transaction(async (tx) => {
      await tx.query(`select set_config('svc.tenant_id', $1, true)`, [tenantId]);
      await store.writeWith(
        tenantId,
        [{ type: 'room.created', data: {}, trace: TRACE }],
        undefined,
        (sql, params) => {
          statements.push(sql);
          return tx.query(sql, params);
        },
        new EventBatch(),
      );
    });
    assert.match(statements[0] ?? '', /insert into webhook_deliveries/);
  });
});
