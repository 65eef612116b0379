import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../../core/http/errors.ts';
import { createEndpoint, getEndpoint, listEndpoints, updateEndpoint } from '../index.ts';
import { SECRET, webhookSuite } from './suite.ts';

describe('webhook endpoint descriptions', () => {
  const s = webhookSuite();

  test("an endpoint's description is kept, listed, changed alone, and limited to 500 characters", async () => {
    const { ctx } = await s.tenant();
    const plain = await createEndpoint(ctx, { url: 'https://example.test/plain', secret: SECRET });
    assert.equal(plain.description, '', 'empty when not given');
    const described = await createEndpoint(ctx, {
      url: 'https://example.test/orders',
      secret: SECRET,
      description: 'Order service (prod)',
    });
    assert.equal(described.description, 'Order service (prod)');
    assert.deepEqual(
      (await listEndpoints(ctx)).data.map((e) => e.description),
      ['', 'Order service (prod)'],
    );
    const changed = await updateEndpoint(ctx, { id: described.id, description: 'Order service' });
    assert.equal(changed.description, 'Order service');
    assert.equal(changed.url, 'https://example.test/orders', 'other fields stay');
    await updateEndpoint(ctx, { id: described.id, enabled: false });
    assert.equal((await getEndpoint(ctx, { id: described.id })).description, 'Order service');
    await assert.rejects(
      updateEndpoint(ctx, { id: described.id, description: 'x'.repeat(501) }),
      (error: unknown) => error instanceof AppError && error.code === 'invalid_request',
    );
  });
});
