import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Queryable } from '../../../core/db/database.ts';
import { systemTx, tenantTx } from '../../../core/db/tenant-tx.ts';
import { writeEvents } from '../../../core/events/store.ts';
import type { TenantEvent } from '../../../core/events/types.ts';
import { newId } from '../../../core/ids.ts';
import { createEndpoint, updateEndpoint, webhookOutbox } from '../index.ts';
import { webhookSuite } from './suite.ts';
import { createTenant, ctxFor, futureClock, webhookConfig } from './support.ts';

const SECRET = 'a-secret-of-at-least-16';

function event(tenantId: string, type: string, data: Record<string, unknown>): TenantEvent {
  return {
    id: newId('event', Date.now()),
    tenantId,
    type,
    data,
    createdAt: new Date(futureClock.now()).toISOString(),
    trace: { traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8), requestId: 'req_outbox', origin: 'api' },
  };
}

/**
 * The outbox as the event store runs it: core's event rows and the webhooks writer's deliveries in one
 * statement; returns the events the writer reports as having queued deliveries.
 */
async function insertEventsWithDeliveries(tx: Queryable, events: TenantEvent[]): Promise<Set<string>> {
  const queued = new Set<string>();
  const writer = webhookOutbox((ids) => {
    for (const id of ids) queued.add(id);
  });
  for (const followUp of await writeEvents(tx, events, [writer])) followUp();
  return queued;
}

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  body: string;
  trace_id: string;
}

/**
 * The outbox statement: event rows and their deliveries in one statement, for one event (plain values) and
 * for several (arrays), with the same rules either way.
 */
describe('webhook outbox: events and their deliveries in one statement', () => {
  const s = webhookSuite();

  for (const many of [false, true]) {
    test(`${many ? 'several events at once' : 'one event at a time'}: matching, exclusions, exact body bytes`, async () => {
      const tenantId = await createTenant(s.db);
      const other = await createTenant(s.db);
      const ctx = ctxFor(s.db, tenantId, webhookConfig());
      const url = 'http://127.0.0.1:9/hook';
      const all = await createEndpoint(ctx, { url, secret: SECRET, eventTypes: null });
      const chat = await createEndpoint(ctx, { url, secret: SECRET, eventTypes: ['chat.*'] });
      const exact = await createEndpoint(ctx, { url, secret: SECRET, eventTypes: ['room.created'] });
      const disabled = await createEndpoint(ctx, { url, secret: SECRET, eventTypes: null });
      await updateEndpoint(ctx, { id: disabled.id, enabled: false });
      await createEndpoint(ctxFor(s.db, other, webhookConfig()), { url, secret: SECRET, eventTypes: null });

      const events = [
        event(tenantId, 'chat.message.created', { text: 'héllo "quoted" \\ back', n: 1 }),
        event(tenantId, 'room.created', { roomId: 'r1' }),
        event(tenantId, 'room.closed', { roomId: 'r1' }),
        // Never sent to the endpoint that failed; a dead-lettering of a dead-letter event goes nowhere.
        event(tenantId, 'webhook.delivery.dead_lettered', {
          endpointId: chat.id,
          eventType: 'chat.message.created',
        }),
        event(tenantId, 'webhook.delivery.dead_lettered', {
          endpointId: all.id,
          eventType: 'webhook.delivery.dead_lettered',
        }),
      ];
      const queued = new Set<string>();
      await tenantTx(s.db, { tenantId }, async (tx) => {
        if (many) for (const id of await insertEventsWithDeliveries(tx, events)) queued.add(id);
        else
          for (const e of events) for (const id of await insertEventsWithDeliveries(tx, [e])) queued.add(id);
      });

      const { rows: written } = await systemTx(s.db, (tx) =>
        tx.query<{ id: string; type: string; data: Record<string, unknown> }>(
          'select id, type, data from events where id = any($1::text[]) order by id',
          [events.map((e) => e.id)],
        ),
      );
      assert.deepEqual(
        written.map((r) => [r.id, r.type, r.data]),
        events.map((e) => [e.id, e.type, e.data]),
        'every event row is written, with its data',
      );
      const { rows } = await systemTx(s.db, (tx) =>
        tx.query<DeliveryRow>(
          'select id, endpoint_id, event_id, event_type, body, trace_id from webhook_deliveries where event_id = any($1::text[])',
          [events.map((e) => e.id)],
        ),
      );
      const pairs = (ids: readonly (string | undefined)[]) => ids.map((id) => String(id)).sort();
      const [chatEvent, created, closed, deadLetter, deadDead] = events;
      const expected = [
        `${chatEvent?.id}>${all.id}`,
        `${chatEvent?.id}>${chat.id}`,
        `${created?.id}>${all.id}`,
        `${created?.id}>${exact.id}`,
        `${closed?.id}>${all.id}`,
        `${deadLetter?.id}>${all.id}`,
      ];
      assert.deepEqual(pairs(rows.map((r) => `${r.event_id}>${r.endpoint_id}`)), pairs(expected));
      assert.deepEqual(
        [...queued].sort(),
        pairs([chatEvent?.id, created?.id, closed?.id, deadLetter?.id]),
        'the events that queued deliveries are reported',
      );
      assert.ok(!rows.some((r) => r.event_id === deadDead?.id));
      for (const row of rows) {
        const source = events.find((e) => e.id === row.event_id);
        assert.ok(source !== undefined);
        assert.match(row.id, /^whd_[0-9a-z]{26}$/);
        assert.equal(
          row.body,
          JSON.stringify({ id: row.id, type: source.type, created_at: source.createdAt, data: source.data }),
          'the body holds exactly the bytes JSON.stringify would',
        );
        assert.equal(row.trace_id, 'ab'.repeat(16), 'the event trace is carried');
      }
      assert.equal(new Set(rows.map((r) => r.id)).size, rows.length, 'delivery ids are unique');

      // Writing the same events again queues nothing twice.
      await tenantTx(s.db, { tenantId }, async (tx) => {
        await tx.query('delete from events where id = any($1::text[])', [events.map((e) => e.id)]);
        await insertEventsWithDeliveries(tx, events);
      });
      const { rows: again } = await systemTx(s.db, (tx) =>
        tx.query<{ n: number }>(
          'select count(*)::int as n from webhook_deliveries where event_id = any($1::text[])',
          [events.map((e) => e.id)],
        ),
      );
      assert.equal(again[0]?.n, rows.length);
    });
  }

  test('events of two tenants cannot share one statement', async () => {
    const a = await createTenant(s.db);
    const b = await createTenant(s.db);
    await assert.rejects(
      systemTx(s.db, (tx) =>
        insertEventsWithDeliveries(tx, [event(a, 'room.created', {}), event(b, 'room.created', {})]),
      ),
      /one tenant/,
    );
  });
});
