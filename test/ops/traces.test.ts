import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { connectSession, createTestTenant } from '../factories.ts';
import { call } from '../helper.ts';
import { TestClient } from '../realtime-gateway/client.ts';
import { eventually } from '../support/eventually.ts';
import {
  callerTraceparent,
  type ReceivedSpan,
  startOtlpReceiver,
  startTracedInstance,
  startTraceparentReceiver,
  type TracedInstance,
  tracingTo,
} from './traces-support.ts';

const SERVER = 2;
const CLIENT = 3;

/**
 * A tenant with a webhook endpoint for `room.updated` at `hooks`, a room, and a realtime client in it:
 * what a rename of the room reaches.
 */
async function roomWithListeners(s: TracedInstance, hooksUrl: string) {
  const tenant = await createTestTenant(s);
  const key = { 'x-api-key': tenant.apiKey };
  const hook = await call(s.app, {
    method: 'POST',
    url: '/v1/webhooks',
    headers: key,
    payload: { url: hooksUrl, secret: 'traces-test-secret-0123', eventTypes: ['room.updated'] },
  });
  assert.equal(hook.statusCode, 201, hook.body);
  const roomId = `room-${randomUUID().slice(0, 8)}`;
  const room = await call(s.app, { method: 'POST', url: '/v1/rooms', headers: key, payload: { id: roomId } });
  assert.equal(room.statusCode, 201, room.body);
  const session = await connectSession(s, tenant.apiKey, { modules: ['rooms'] });
  const client = await TestClient.connect(`${s.publicUrl.replace('http', 'ws')}/v1/realtime`, session.token);
  client.send({ type: 'join', room: roomId });
  await client.waitFor((f) => f.type === 'joined', 'joined');
  /** Renames the room over HTTP with the caller's `traceparent`. */
  const rename = async (traceparent: string, name: string) => {
    const res = await fetch(`${s.publicUrl}/v1/rooms/${roomId}`, {
      method: 'PATCH',
      headers: { ...key, 'content-type': 'application/json', traceparent },
      body: JSON.stringify({ name }),
    });
    assert.equal(res.status, 200, await res.text());
  };
  return { client, rename };
}

function byName(spans: ReceivedSpan[], name: string): ReceivedSpan {
  const found = spans.filter((span) => span.name === name);
  assert.equal(found.length, 1, `one ${name} span; spans: ${spans.map((s) => s.name).join(', ')}`);
  return found[0] as ReceivedSpan;
}

describe('traces: one request followed through the transaction, the outbox, a webhook attempt and the fan-out', () => {
  test('a sampled incoming traceparent: one trace, one tree, the receiver continues the attempt span', async () => {
    const otlp = await startOtlpReceiver();
    const hooks = await startTraceparentReceiver();
    const s = await startTracedInstance(tracingTo(otlp.url));
    let closed = false;
    try {
      const { client, rename } = await roomWithListeners(s, hooks.url);
      const caller = callerTraceparent('01');
      await rename(caller.header, 'Traced');
      await client.waitFor((f) => f.type === 'event', 'the room.updated event frame');
      await eventually('the webhook delivered', () => hooks.traceparents.length > 0);
      // Closing flushes the spans (the attempt span ends once the receiver has answered).
      await s.close();
      closed = true;

      const spans = otlp.spans.filter((span) => span.traceId === caller.traceId);
      assert.ok(spans.every((span) => span.service === 'svc-traces-test'));
      const request = byName(spans, 'PATCH /v1/rooms/:roomId');
      assert.equal(request.kind, SERVER);
      assert.equal(request.parentSpanId, caller.spanId, 'the request span continues the caller');
      assert.equal(request.attributes['http.route'], '/v1/rooms/:roomId');

      const ids = new Map(spans.map((span) => [span.spanId, span]));
      const ancestors = (span: ReceivedSpan): string[] => {
        const parent = span.parentSpanId === undefined ? undefined : ids.get(span.parentSpanId);
        return parent === undefined ? [] : [parent.name, ...ancestors(parent)];
      };
      // Every span of the trace hangs under the request span.
      for (const span of spans) {
        if (span === request) continue;
        assert.ok(
          ancestors(span).includes(request.name),
          `${span.name} under the request: ${ancestors(span)}`,
        );
      }
      const transaction = spans.find(
        (span) => span.name === 'db.transaction' && span.attributes['svc.db.role'] === 'svc_tenant',
      );
      assert.ok(transaction !== undefined, 'the verb transaction has a span');
      // The webhook worker the commit woke runs its own loop: its claims and records are not the request's.
      assert.deepEqual(
        spans.filter((span) => span.attributes['svc.db.role'] === 'svc_system').map((span) => span.name),
        [],
      );
      // On PostgreSQL the pg instrumentation adds the statements under the transaction; PGlite has no pg.
      const statements = spans.filter((span) => span.name.startsWith('pg.query'));
      assert.equal(statements.length > 0, s.db.kind === 'postgres', `pg spans on ${s.db.kind}`);
      for (const statement of statements) assert.ok(ancestors(statement).includes(request.name));
      const written = byName(spans, 'outbox.write');
      assert.equal(written.parentSpanId, transaction.spanId, 'the event is written inside the transaction');
      assert.equal(written.attributes['svc.event.types'], 'room.updated');
      const published = byName(spans, 'outbox.publish');
      assert.ok(!ancestors(published).includes('db.transaction'), 'published after the commit, not inside');
      assert.equal(published.attributes['svc.event.id'], written.attributes['svc.event.id']);

      const attempt = byName(spans, 'webhook.attempt');
      assert.equal(attempt.kind, CLIENT);
      assert.equal(
        attempt.parentSpanId,
        request.spanId,
        'the attempt is a child of the span that caused the event',
      );
      assert.equal(attempt.attributes['http.response.status_code'], 200);
      assert.equal(attempt.attributes['svc.event.id'], written.attributes['svc.event.id']);
      const [traceparent] = hooks.traceparents;
      assert.equal(
        traceparent,
        `00-${caller.traceId}-${attempt.spanId}-01`,
        'the receiver continues the attempt',
      );

      const fanOut = byName(spans, 'realtime.fan_out');
      assert.equal(fanOut.parentSpanId, request.spanId);
      assert.equal(fanOut.attributes['svc.realtime.members'], 1);
      assert.deepEqual(otlp.refused, []);
    } finally {
      if (!closed) await s.close();
      await hooks.close();
      await otlp.close();
    }
  });

  test('an unsampled incoming traceparent (flags 00): nothing of its trace is exported', async () => {
    const otlp = await startOtlpReceiver();
    const hooks = await startTraceparentReceiver();
    const s = await startTracedInstance(tracingTo(otlp.url));
    let closed = false;
    try {
      const { client, rename } = await roomWithListeners(s, hooks.url);
      const unsampled = callerTraceparent('00');
      await rename(unsampled.header, 'Not traced');
      await client.waitFor((f) => f.type === 'event', 'the room.updated event frame');
      await eventually('the webhook delivered', () => hooks.traceparents.length > 0);
      // A sampled request afterwards, so an export certainly happened before the check.
      const sampled = callerTraceparent('01');
      await rename(sampled.header, 'Traced');
      await eventually('the second delivery', () => hooks.traceparents.length > 1);
      await s.close();
      closed = true;

      assert.deepEqual(
        otlp.spans.filter((span) => span.traceId === unsampled.traceId).map((span) => span.name),
        [],
      );
      assert.ok(
        otlp.spans.some((span) => span.traceId === sampled.traceId && span.name === 'webhook.attempt'),
      );
      // The receiver still gets the caller's trace, unsampled, with a span id of the attempt's own.
      const [first] = hooks.traceparents;
      assert.match(first ?? '', new RegExp(`^00-${unsampled.traceId}-[0-9a-f]{16}-00$`));
      assert.ok(!first?.includes(unsampled.spanId));
    } finally {
      if (!closed) await s.close();
      await hooks.close();
      await otlp.close();
    }
  });
});
