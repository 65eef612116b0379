import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bearer, createTestTenant } from '../../../../test/factories.ts';
import { call } from '../../../../test/helper.ts';
import { appSuite } from '../../../../test/support/suite.ts';
import { type Build, buildUrl, requestBuild } from './mobile-build-support.ts';
import { addMember, consoleCall, expectError, keyOf, makeOperator } from './support.ts';

describe('mobile build dispatch: development mode (no dispatch token)', () => {
  const s = appSuite();

  test('answers {queued: false, devMode: true, build}, records it as dev_mode, sends nothing', async () => {
    const operator = await makeOperator(s.t, s.tenant);
    const res = await requestBuild(s.t, s.tenant, operator.id, { platform: 'android' });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json<{ queued: boolean; devMode: boolean; build: Build }>();
    assert.deepEqual(Object.keys(body), ['queued', 'devMode', 'build']);
    assert.equal(body.queued, false);
    assert.equal(body.devMode, true);
    assert.deepEqual(Object.keys(body.build).sort(), [
      'buildUrl',
      'completedAt',
      'createdAt',
      'error',
      'id',
      'operatorId',
      'platform',
      'requestedBy',
      'status',
      'submitToStores',
      'updatedAt',
    ]);
    assert.match(body.build.id, /^mbd_/);
    assert.equal(body.build.status, 'dev_mode');
    assert.equal(body.build.submitToStores, false, 'submitToStores defaults to false');
    assert.equal(body.build.requestedBy, s.tenant.ownerUserId);
    const list = await consoleCall(
      s.t,
      s.tenant,
      'GET',
      `/api/console/operators/${operator.id}/mobile-builds`,
    );
    assert.deepEqual(
      list.json<{ data: Build[] }>().data.map((b) => [b.id, b.status]),
      [[body.build.id, 'dev_mode']],
    );
  });

  test('platform other than android or ios, or unknown fields: 400 with details', async () => {
    const operator = await makeOperator(s.t, s.tenant);
    for (const payload of [
      { platform: 'windows' },
      {},
      { platform: 'ios', submitToStores: 'yes' },
      { platform: 'ios', x: 1 },
    ]) {
      const res = await requestBuild(s.t, s.tenant, operator.id, payload);
      const body = expectError(res, 400, 'invalid_request');
      assert.ok((body.details ?? []).length > 0, res.body);
    }
  });

  test('role admin or above; a member below gets 403 forbidden, a stranger 404', async () => {
    const operator = await makeOperator(s.t, s.tenant);
    for (const role of ['developer', 'viewer'] as const) {
      const token = await addMember(s.t, s.tenant, role);
      const res = await call(s.t.app, {
        method: 'POST',
        url: buildUrl(operator.id),
        headers: bearer(token),
        payload: { platform: 'android' },
      });
      expectError(res, 403, 'forbidden');
      if (role === 'viewer') {
        const list = await call(s.t.app, {
          method: 'GET',
          url: `/api/console/operators/${operator.id}/mobile-builds`,
          headers: bearer(token),
        });
        assert.equal(list.statusCode, 200, list.body);
      }
    }
    const stranger = await createTestTenant(s.t);
    expectError(await requestBuild(s.t, stranger, operator.id, { platform: 'android' }), 404, 'not_found');
    expectError(
      await requestBuild(s.t, s.tenant, 'op_01m8a7c30nnp98gz61y3yxyv71', {
        platform: 'android',
      }),
      404,
      'not_found',
    );
    expectError(
      await call(s.t.app, { method: 'POST', url: buildUrl(operator.id), payload: { platform: 'ios' } }),
      401,
      'unauthorized',
    );
    expectError(
      await call(s.t.app, {
        method: 'POST',
        url: buildUrl(operator.id),
        headers: keyOf(s.tenant.apiKey),
        payload: { platform: 'ios' },
      }),
      401,
      'unauthorized',
    );
  });
});
