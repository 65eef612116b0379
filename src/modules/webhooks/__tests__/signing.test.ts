import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { describe, test } from 'node:test';
import { createEndpoint, getDelivery, rotateSecret } from '../index.ts';
import { SECRET, suiteReceiver, webhookSuite } from './suite.ts';
import { futureClock, manualClock, webhookConfig } from './support.ts';

/** The receiver-side check from docs/webhooks.md: any listed signature made with our secret. */
function verifySvcSignature(raw: Buffer, header: string, secret: string): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`);
  return header.split(',').some((sig) => {
    const given = Buffer.from(sig.trim());
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** Standard Webhooks: HMAC over "id.timestamp.body", base64, "v1," prefix, space-separated list. */
function verifyStandard(raw: Buffer, headers: Record<string, unknown>, secret: string): boolean {
  const signed = Buffer.concat([
    Buffer.from(`${headers['webhook-id']}.${headers['webhook-timestamp']}.`),
    raw,
  ]);
  const expected = `v1,${createHmac('sha256', Buffer.from(secret, 'utf8')).update(signed).digest('base64')}`;
  return String(headers['webhook-signature']).split(' ').includes(expected);
}

describe('webhook request: body, headers, signatures', () => {
  const s = webhookSuite();
  const receiver = suiteReceiver();

  test('the body is the delivery object and both signatures verify over the raw bytes', async () => {
    const { tenantId, ctx } = await s.tenant();
    await createEndpoint(ctx, { url: receiver().url, secret: SECRET, eventTypes: null });
    const data = { auctionId: 'auc_1', roomId: 'room_1', note: 'héllo ✓ </script> "quoted" \u2028', n: 1.5 };
    const sentFrom = futureClock.now();
    const { deliveryIds } = await s.publish(tenantId, 'auction.started', data);
    assert.equal(deliveryIds.length, 1);
    const [id = ''] = deliveryIds;
    const worker = s.worker({ tenantIds: [tenantId] });
    try {
      await s.waitFor(id, 'delivered');
    } finally {
      await worker.stop();
    }
    const sentUntil = futureClock.now();

    const requests = receiver().received.filter((r) => r.headers['x-svc-delivery'] === id);
    assert.equal(requests.length, 1);
    const [request] = requests;
    assert.ok(request !== undefined);
    assert.equal(request.method, 'POST');
    assert.equal(request.url, '/hook');
    assert.equal(request.headers['content-type'], 'application/json');
    assert.equal(request.headers['user-agent'], 'svc-webhooks/1');
    assert.equal(request.headers['x-svc-event'], 'auction.started');
    assert.equal(request.headers['webhook-id'], id);
    assert.match(String(request.headers.traceparent), /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);

    assert.deepEqual(Object.keys(request.json), ['id', 'type', 'created_at', 'data']);
    assert.equal(request.json.id, id);
    assert.match(id, /^whd_[0-9a-z]{26}$/);
    assert.equal(request.json.type, 'auction.started');
    assert.deepEqual(request.json.data, data);
    const createdAt = String(request.json.created_at);
    assert.match(createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(sentFrom <= Date.parse(createdAt) && Date.parse(createdAt) <= sentUntil);

    const timestamp = Number(request.headers['webhook-timestamp']);
    assert.ok(Number.isInteger(timestamp));
    assert.ok(Math.floor(sentFrom / 1000) <= timestamp && timestamp <= Math.floor(sentUntil / 1000));

    const signature = String(request.headers['x-svc-signature']);
    assert.match(signature, /^sha256=[0-9a-f]{64}$/);
    assert.ok(verifySvcSignature(request.raw, signature, SECRET), 'X-SVC-Signature verifies');
    assert.ok(verifyStandard(request.raw, request.headers, SECRET), 'webhook-signature verifies');

    // The checks can fail: a changed byte or another secret does not verify.
    const tampered = Buffer.from(request.raw);
    tampered[tampered.length - 2] = 0x20;
    assert.equal(verifySvcSignature(tampered, signature, SECRET), false);
    assert.equal(verifyStandard(tampered, request.headers, SECRET), false);
    assert.equal(verifySvcSignature(request.raw, signature, 'another-secret-000'), false);

    // The stored body is byte for byte what was sent.
    const stored = await getDelivery(ctx, { id });
    assert.equal(stored.body, request.raw.toString('utf8'));
    assert.equal(stored.state, 'delivered');
    assert.equal(stored.attempts.length, 1);
    assert.equal(stored.attempts[0]?.statusCode, 200);
    assert.equal(stored.attempts[0]?.errorClass, null);
    assert.equal(stored.attempts[0]?.responseBodyExcerpt, 'ok');
  });

  test('rotation grace: both secrets sign until the grace ends, then only the new one', async () => {
    const clock = manualClock();
    const { tenantId, ctx } = await s.tenant(webhookConfig(), clock);
    const endpoint = await createEndpoint(ctx, { url: receiver().url, secret: SECRET });
    const newSecret = 'the-new-secret-0002';
    await rotateSecret(ctx, { id: endpoint.id, secret: newSecret, graceSeconds: 60 });
    const worker = s.worker({ clock, tenantIds: [tenantId] });
    try {
      const during = await s.publish(tenantId, 'room.created', { roomId: 'room_1' }, clock);
      worker.wake();
      const [duringId = ''] = during.deliveryIds;
      await s.waitFor(duringId, 'delivered');

      clock.advance(60_000);
      const afterGrace = await s.publish(tenantId, 'room.created', { roomId: 'room_2' }, clock);
      worker.wake();
      const [afterId = ''] = afterGrace.deliveryIds;
      await s.waitFor(afterId, 'delivered');

      const first = receiver().received.find((r) => r.headers['x-svc-delivery'] === duringId);
      const second = receiver().received.find((r) => r.headers['x-svc-delivery'] === afterId);
      assert.ok(first !== undefined && second !== undefined);

      const both = String(first.headers['x-svc-signature']).split(',');
      assert.equal(both.length, 2, 'two X-SVC-Signature values during the grace');
      assert.ok(verifySvcSignature(first.raw, both[0] ?? '', newSecret), 'the new secret signs first');
      assert.ok(verifySvcSignature(first.raw, both[1] ?? '', SECRET), 'the old secret signs second');
      assert.equal(String(first.headers['webhook-signature']).split(' ').length, 2);
      assert.ok(verifyStandard(first.raw, first.headers, newSecret));
      assert.ok(verifyStandard(first.raw, first.headers, SECRET));

      assert.equal(
        String(second.headers['x-svc-signature']).split(',').length,
        1,
        'the old secret is dropped',
      );
      assert.ok(verifySvcSignature(second.raw, String(second.headers['x-svc-signature']), newSecret));
      assert.equal(verifySvcSignature(second.raw, String(second.headers['x-svc-signature']), SECRET), false);
      assert.ok(verifyStandard(second.raw, second.headers, newSecret));
      assert.equal(verifyStandard(second.raw, second.headers, SECRET), false);
    } finally {
      await worker.stop();
    }
  });
});
