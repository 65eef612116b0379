import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { memberView, presenceRecord } from '../member.ts';

const member = (state: Record<string, never> | object) => ({
  actor: '2b0c6e3e-6a43-4d1e-9d51-0b7c4d9f7a10',
  state: state as never,
  joinedAt: 0,
  updatedAt: 0,
  connections: 1,
});

describe('presence members as the API shows them', () => {
  test('a record names its actor by the Actor object, not the internal id the store keys it by', () => {
    const record = presenceRecord(
      {
        id: '2b0c6e3e-6a43-4d1e-9d51-0b7c4d9f7a10',
        type: 'agent',
        externalId: 'acme:7',
        identityProvider: 'acme-oidc',
      },
      { status: 'here' },
    );
    const view = memberView(member(record));
    assert.deepEqual(view.actor, { type: 'agent', id: 'acme:7', identityProvider: 'acme-oidc' });
    assert.deepEqual(view.state, { status: 'here' });
    assert.ok(!JSON.stringify(view).includes('2b0c6e3e'));
  });

  test('a record stored before issue 29 ({type, externalId}) reads as the Actor object', () => {
    const view = memberView(member({ who: { type: 'end_user', externalId: 'shop:42' }, state: { a: 1 } }));
    assert.deepEqual(view.actor, { type: 'end_user', id: 'shop:42', identityProvider: 'shop' });
    assert.deepEqual(view.state, { a: 1 });
    assert.ok(!JSON.stringify(view).includes('2b0c6e3e'));
  });
});
