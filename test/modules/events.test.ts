import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { inTenant } from '../../src/core/context.ts';
import { traceFrom } from '../../src/core/http/request-id.ts';
import { createApiKey, createTestTenant, type TestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';

interface WireEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
  created_at: string;
  trace: {
    traceId: string;
    spanId: string;
    sampled?: boolean;
    requestId: string;
    origin: string;
    actor?: { kind: string; id: string };
  };
}

describe('tenant events', () => {
  let t: TestApp;
  let tenant: TestTenant;
  const key = () => ({ 'x-api-key': tenant.apiKey });

  before(async () => {
    t = await buildTestApp();
    tenant = await createTestTenant(t);
  });
  after(() => t.close());

  const events = async (query: string, headers: Record<string, string> = key()) => {
    const res = await call(t.app, { method: 'GET', url: `/v1/events${query}`, headers });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ data: WireEvent[]; nextCursor: string | null }>();
  };

  test('a traceparent on the request lands in room.created, with request id, origin and actor', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await call(t.app, {
      method: 'POST',
      url: '/v1/rooms',
      headers: { ...key(), traceparent: `00-${traceId}-00f067aa0ba902b7-01`, 'x-request-id': 'trace-test-1' },
      payload: { id: 'traced-room' },
    });
    assert.equal(res.statusCode, 201);
    const [event] = (await events('?type=room.created&limit=1')).data;
    assert.ok(event);
    assert.equal(event.data.roomId, 'traced-room');
    assert.equal(event.trace.traceId, traceId);
    assert.notEqual(event.trace.spanId, '00f067aa0ba902b7');
    assert.equal(event.trace.sampled, true, 'the sampled flag (01) of the traceparent is kept');
    assert.equal(event.trace.requestId, 'trace-test-1');
    assert.equal(event.trace.origin, 'api');
    assert.equal(event.trace.actor?.kind, 'api_key');
    assert.match(event.id, /^evt_/);
    assert.match(event.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const one = await call(t.app, { method: 'GET', url: `/v1/events/${event.id}`, headers: key() });
    assert.deepEqual(one.json(), event);
  });

  test('without traceparent a fresh trace id is made; an invalid one is replaced', async () => {
    await call(t.app, {
      method: 'POST',
      url: '/v1/rooms',
      headers: { ...key(), traceparent: 'garbage' },
      payload: {},
    });
    const [event] = (await events('?type=room.created&limit=1')).data;
    assert.match(event?.trace.traceId ?? '', /^[0-9a-f]{32}$/);
  });

  test('a failed change writes no event', async () => {
    const before = (await events('?type=room.*&limit=100')).data.length;
    await call(t.app, { method: 'POST', url: '/v1/rooms', headers: key(), payload: { id: 'twice' } });
    const dup = await call(t.app, {
      method: 'POST',
      url: '/v1/rooms',
      headers: key(),
      payload: { id: 'twice' },
    });
    assert.equal(dup.statusCode, 409);
    const missing = await call(t.app, {
      method: 'PATCH',
      url: '/v1/rooms/nope',
      headers: key(),
      payload: { name: 'x' },
    });
    assert.equal(missing.statusCode, 404);
    const after = (await events('?type=room.*&limit=100')).data;
    assert.equal(after.length, before + 1);
    assert.equal(after.filter((e) => e.data.roomId === 'twice').length, 1);
  });

  test('type filters: exact and prefix', async () => {
    const own = await createTestTenant(t);
    const headers = { 'x-api-key': own.apiKey };
    const room = (await call(t.app, { method: 'POST', url: '/v1/rooms', headers, payload: {} })).json<{
      id: string;
    }>();
    await call(t.app, { method: 'PATCH', url: `/v1/rooms/${room.id}`, headers, payload: { name: 'n' } });
    await call(t.app, {
      method: 'POST',
      url: '/v1/events',
      headers,
      payload: { type: 'app.order.paid', data: { n: 1 } },
    });
    const all = await events('', headers);
    assert.deepEqual(
      all.data.map((e) => e.type),
      ['app.order.paid', 'room.updated', 'room.created'],
    );
    assert.deepEqual(
      (await events('?type=room.*', headers)).data.map((e) => e.type),
      ['room.updated', 'room.created'],
    );
    assert.deepEqual(
      (await events('?type=room.created', headers)).data.map((e) => e.type),
      ['room.created'],
    );
    assert.deepEqual(
      (await events('?type=app.*', headers)).data.map((e) => e.type),
      ['app.order.paid'],
    );
    const bad = await call(t.app, { method: 'GET', url: '/v1/events?type=ROOM!', headers });
    assert.equal(bad.statusCode, 400);
    const tooMany = await call(t.app, { method: 'GET', url: '/v1/events?limit=101', headers });
    assert.equal(tooMany.statusCode, 400);
  });

  test('time range filters by created_at', async () => {
    const own = await createTestTenant(t);
    const headers = { 'x-api-key': own.apiKey };
    await call(t.app, {
      method: 'POST',
      url: '/v1/events',
      headers,
      payload: { type: 'app.early', data: {} },
    });
    const [early] = (await events('', headers)).data;
    assert.ok(early);
    const mid = new Date(Date.parse(early.created_at) + 1).toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await call(t.app, {
      method: 'POST',
      url: '/v1/events',
      headers,
      payload: { type: 'app.late', data: {} },
    });
    assert.deepEqual(
      (await events(`?since=${mid}`, headers)).data.map((e) => e.type),
      ['app.late'],
    );
    assert.deepEqual(
      (await events(`?until=${mid}`, headers)).data.map((e) => e.type),
      ['app.early'],
    );
  });

  test('pagination returns every event exactly once while new events arrive', async () => {
    const own = await createTestTenant(t);
    const headers = { 'x-api-key': own.apiKey };
    const publish = (n: number) =>
      call(t.app, { method: 'POST', url: '/v1/events', headers, payload: { type: 'app.tick', data: { n } } });
    for (let n = 0; n < 25; n++) await publish(n);

    for (const order of ['desc', 'asc'] as const) {
      const seen: number[] = [];
      let cursor: string | null = null;
      let extra = 1000;
      do {
        const query: string = `?type=app.tick&limit=4&order=${order}${cursor === null ? '' : `&cursor=${cursor}`}`;
        const page = await events(query, headers);
        seen.push(...page.data.map((e) => Number(e.data.n)));
        cursor = page.nextCursor;
        // New events keep arriving between pages.
        if (order === 'desc') await publish(extra++);
      } while (cursor !== null);
      const original = seen.filter((n) => n < 1000);
      assert.equal(new Set(seen).size, seen.length, `${order}: no event twice`);
      assert.deepEqual(
        [...original].sort((a, b) => a - b),
        Array.from({ length: 25 }, (_, i) => i),
        `${order}: every original event once`,
      );
      if (order === 'asc')
        assert.ok(seen.includes(1000), 'ascending pages reach events that arrived meanwhile');
    }

    const mismatch = await events('?type=app.tick&limit=1&order=asc', headers);
    const wrong = await call(t.app, {
      method: 'GET',
      url: `/v1/events?order=desc&cursor=${mismatch.nextCursor}`,
      headers,
    });
    assert.equal(wrong.statusCode, 400);
  });

  test('POST /v1/events: app.* only, data <= 64 KiB, scope events:write', async () => {
    const wrongType = await call(t.app, {
      method: 'POST',
      url: '/v1/events',
      headers: key(),
      payload: { type: 'room.created', data: {} },
    });
    assert.equal(wrongType.statusCode, 400);
    const big = await call(t.app, {
      method: 'POST',
      url: '/v1/events',
      headers: key(),
      payload: { type: 'app.big', data: { blob: 'x'.repeat(70 * 1024) } },
    });
    assert.equal(big.statusCode, 400);
    assert.equal(big.json<{ details: { code: string }[] }>().details[0]?.code, 'too_large');

    const readOnly = await createApiKey(t, tenant.tenantId, ['events:read']);
    const denied = await call(t.app, {
      method: 'POST',
      url: '/v1/events',
      headers: { 'x-api-key': readOnly },
      payload: { type: 'app.x', data: {} },
    });
    assert.equal(denied.statusCode, 403);
    assert.equal(denied.json().error, 'insufficient_scope');
    const noRead = await createApiKey(t, tenant.tenantId, ['rooms:read']);
    assert.equal(
      (await call(t.app, { method: 'GET', url: '/v1/events', headers: { 'x-api-key': noRead } })).statusCode,
      403,
    );
  });

  test('committed events reach bus subscribers after commit, failed ones never', async () => {
    const own = await createTestTenant(t);
    const headers = { 'x-api-key': own.apiKey };
    const received: string[] = [];
    const unsubscribe = t.app.services.events.bus.subscribe((event) => {
      if (event.tenantId === own.tenantId) received.push(event.type);
    });
    try {
      await call(t.app, { method: 'POST', url: '/v1/rooms', headers, payload: { id: 'bus-room' } });
      await call(t.app, { method: 'POST', url: '/v1/rooms', headers, payload: { id: 'bus-room' } });
      assert.deepEqual(received, ['room.created']);
    } finally {
      unsubscribe();
    }
  });

  test('a disabled module emits no events, even from system work', async () => {
    const own = await createTestTenant(t);
    const put = await call(t.app, {
      method: 'PUT',
      url: `/api/console/tenants/${own.tenantId}/modules/rooms`,
      headers: { authorization: `Bearer ${own.ownerToken}` },
      payload: { enabled: false },
    });
    assert.equal(put.statusCode, 200);
    const ctx = {
      ...t.app.services,
      log: t.app.log,
      tenantId: own.tenantId,
      principal: undefined,
      requestId: 'system-test',
      trace: traceFrom(undefined),
      origin: 'system' as const,
    };
    const emitted = await inTenant(ctx, async (_tx, emit) => ({
      room: await emit('room.created', { roomId: 'x' }),
      app: await emit('app.still.allowed', {}),
    }));
    assert.equal(emitted.room, undefined);
    assert.equal(emitted.app?.type, 'app.still.allowed');
    const listed = await events('', { 'x-api-key': own.apiKey });
    assert.deepEqual(
      listed.data.map((e) => e.type),
      ['app.still.allowed'],
    );
  });

  test('the console lists the same events for members', async () => {
    const res = await call(t.app, {
      method: 'GET',
      url: `/api/console/tenants/${tenant.tenantId}/events?type=room.created&limit=2`,
      headers: { authorization: `Bearer ${tenant.ownerToken}` },
    });
    assert.equal(res.statusCode, 200);
    const apiView = await events('?type=room.created&limit=2');
    assert.deepEqual(res.json(), apiView);
  });
});
