import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../../core/http/errors.ts';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  rotateSecret,
  updateEndpoint,
} from '../index.ts';
import { webhookSuite } from './suite.ts';
import { ctxFor, futureClock, webhookConfig } from './support.ts';

const SECRET = 'a-secret-of-at-least-16';

async function rejects(promise: Promise<unknown>, code: string, field?: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof AppError, `expected an AppError, got ${String(error)}`);
    assert.equal(error.code, code);
    if (field !== undefined) {
      assert.ok(
        error.details?.some((d) => d.field === field),
        `expected a detail for ${field}, got ${JSON.stringify(error.details)}`,
      );
    }
    return true;
  });
}

describe('webhook endpoints', () => {
  const s = webhookSuite();

  test('create returns the endpoint without its secret; get, list, update, delete', async () => {
    const ctx = (await s.tenant()).ctx;
    const before = futureClock.now();
    const created = await createEndpoint(ctx, {
      url: 'http://127.0.0.1:9/hook',
      secret: SECRET,
      eventTypes: null,
    });
    const createdAt = new Date(created.createdAt).getTime();
    assert.ok(
      before <= createdAt && createdAt <= futureClock.now(),
      'createdAt comes from the injected clock',
    );
    assert.match(created.id, /^whe_[0-9a-z]{26}$/);
    assert.equal(created.url, 'http://127.0.0.1:9/hook');
    assert.equal(created.eventTypes, null);
    assert.equal(created.enabled, true);
    assert.ok(!JSON.stringify(created).includes(SECRET), 'the secret must never be returned');

    assert.deepEqual(await getEndpoint(ctx, { id: created.id }), created);

    const updated = await updateEndpoint(ctx, {
      id: created.id,
      eventTypes: ['room.created', 'auction.*'],
      enabled: false,
    });
    assert.deepEqual(updated.eventTypes, ['room.created', 'auction.*']);
    assert.equal(updated.enabled, false);
    assert.equal(updated.url, created.url);

    const second = await createEndpoint(ctx, {
      url: 'https://example.com/b',
      secret: SECRET,
      eventTypes: ['room.created'],
    });
    const third = await createEndpoint(ctx, { url: 'https://example.com/c', secret: SECRET });
    const page1 = await listEndpoints(ctx, { limit: 2 });
    assert.deepEqual(
      page1.data.map((e) => e.id),
      [created.id, second.id],
    );
    assert.equal(typeof page1.nextCursor, 'string', 'an opaque cursor: the page ends after the second');
    const page2 = await listEndpoints(ctx, { limit: 2, cursor: page1.nextCursor ?? undefined });
    assert.deepEqual(
      page2.data.map((e) => e.id),
      [third.id],
    );
    assert.equal(page2.nextCursor, null);

    await deleteEndpoint(ctx, { id: created.id });
    await rejects(getEndpoint(ctx, { id: created.id }), 'not_found');
    await rejects(deleteEndpoint(ctx, { id: created.id }), 'not_found');
  });

  test("another tenant's endpoint is not found", async () => {
    const a = (await s.tenant()).ctx;
    const b = (await s.tenant()).ctx;
    const endpoint = await createEndpoint(a, { url: 'https://example.com/a', secret: SECRET });
    await rejects(getEndpoint(b, { id: endpoint.id }), 'not_found');
    await rejects(updateEndpoint(b, { id: endpoint.id, enabled: false }), 'not_found');
    await rejects(rotateSecret(b, { id: endpoint.id, secret: 'another-secret-16chars' }), 'not_found');
    await rejects(deleteEndpoint(b, { id: endpoint.id }), 'not_found');
    assert.deepEqual((await listEndpoints(b)).data, []);
    assert.equal((await getEndpoint(a, { id: endpoint.id })).enabled, true);
  });

  test('input validation: secret length, URL scheme, eventTypes', async () => {
    const ctx = (await s.tenant()).ctx;
    await rejects(
      createEndpoint(ctx, { url: 'https://example.com/', secret: 'short-secret' }),
      'invalid_request',
      '/body/secret',
    );
    await rejects(
      createEndpoint(ctx, { url: 'ftp://example.com/', secret: SECRET }),
      'invalid_request',
      '/body/url',
    );
    await rejects(createEndpoint(ctx, { url: 'not a url', secret: SECRET }), 'invalid_request', '/body/url');
    await rejects(
      createEndpoint(ctx, { url: 'https://user:pw@example.com/', secret: SECRET }),
      'invalid_request',
      '/body/url',
    );
    await rejects(
      createEndpoint(ctx, { url: 'https://example.com/', secret: SECRET, eventTypes: [] }),
      'invalid_request',
      '/body/eventTypes',
    );
    await rejects(
      createEndpoint(ctx, {
        url: 'https://example.com/',
        secret: SECRET,
        eventTypes: ['room.created', 'Bad Type'],
      }),
      'invalid_request',
      '/body/eventTypes/1',
    );
    await rejects(
      createEndpoint(ctx, { url: 'https://example.com/', secret: SECRET, eventTypes: ['*'] }),
      'invalid_request',
      '/body/eventTypes/0',
    );
    await rejects(updateEndpoint(ctx, { id: 'whe_nope' }), 'invalid_request', '/body');
    // Exactly 16 characters is enough; duplicates in eventTypes collapse.
    const ok = await createEndpoint(ctx, {
      url: 'http://localhost:3000/hook',
      secret: '0123456789abcdef',
      eventTypes: ['room.created', 'room.created', 'auction.*'],
    });
    assert.deepEqual(ok.eventTypes, ['room.created', 'auction.*']);
  });

  test('production: https only, no inside destinations unless the host is allowlisted', async () => {
    const ctx = (await s.tenant(webhookConfig({ env: 'production' }))).ctx;
    for (const url of [
      'http://example.com/hook',
      'https://127.0.0.1/hook',
      'https://10.1.2.3/hook',
      'https://192.168.0.10/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://[fd00:ec2::254]/hook',
      'https://2130706433/hook',
      'https://localhost/hook',
      'https://api.localhost/hook',
      'https://metadata.google.internal/computeMetadata/v1/',
    ]) {
      await rejects(createEndpoint(ctx, { url, secret: SECRET }), 'invalid_request', '/body/url');
    }
    const endpoint = await createEndpoint(ctx, { url: 'https://hooks.example.com/svc', secret: SECRET });
    await rejects(
      updateEndpoint(ctx, { id: endpoint.id, url: 'https://127.0.0.1:8443/x' }),
      'invalid_request',
      '/body/url',
    );

    const opened = ctxFor(
      s.db,
      ctx.tenantId,
      webhookConfig({ env: 'production', webhookAllowedHosts: ['localhost'] }),
    );
    const local = await createEndpoint(opened, { url: 'https://localhost:8443/hook', secret: SECRET });
    assert.equal(local.url, 'https://localhost:8443/hook');
  });

  test('rotate secret: grace bounds, a new secret must differ', async () => {
    const ctx = (await s.tenant()).ctx;
    const endpoint = await createEndpoint(ctx, { url: 'https://example.com/', secret: SECRET });
    await rejects(rotateSecret(ctx, { id: endpoint.id, secret: SECRET }), 'invalid_request', '/body/secret');
    await rejects(rotateSecret(ctx, { id: endpoint.id, secret: 'short' }), 'invalid_request', '/body/secret');
    await rejects(
      rotateSecret(ctx, { id: endpoint.id, secret: 'another-secret-16chars', graceSeconds: -1 }),
      'invalid_request',
      '/body/graceSeconds',
    );
    const rotated = await rotateSecret(ctx, {
      id: endpoint.id,
      secret: 'another-secret-16chars',
      graceSeconds: 60,
    });
    assert.equal(
      rotated.previousSecretExpiresAt,
      new Date(new Date(rotated.updatedAt).getTime() + 60_000).toISOString(),
    );
    const immediate = await rotateSecret(ctx, {
      id: endpoint.id,
      secret: 'third-secret-16-chars',
      graceSeconds: 0,
    });
    assert.equal(immediate.previousSecretExpiresAt, null);
  });
});
