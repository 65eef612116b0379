import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MODULES } from '../../../src/app.ts';
import { systemClock } from '../../../src/core/clock.ts';
import { systemTx } from '../../../src/core/db/tenant-tx.ts';
import { activeRetention, retentionRules } from '../../../src/core/retention/rules.ts';
import { RetentionWorker } from '../../../src/core/retention/worker.ts';
import { eventually } from '../../../test/support/eventually.ts';
import type { ChatMessage } from '../src/realtime/types.ts';
import type { Realtime } from '../src/realtime.ts';
import type { TcpProxy } from './support/realtime-proxy.ts';
import {
  nodeRealtime,
  postMessage,
  type RealtimeService,
  withProxiedService,
} from './support/realtime-service.ts';

/**
 * A client away longer than the server keeps changes (chat_changes retention) cannot resume: the room
 * says so with `resync` `{recovered: false}`, joins live, and the app reloads the history through it.
 */

let svc: RealtimeService;
let proxy: TcpProxy;
const clients: Realtime[] = [];

withProxiedService(clients, (opened, cut) => {
  svc = opened;
  proxy = cut;
});

/** Ages every change of the room past the retention (7 days) and runs the retention pass that deletes them. */
async function expireChanges(roomId: string): Promise<void> {
  await systemTx(svc.t.db, (tx) =>
    tx.query(
      `update chat_changes set created_at = created_at - interval '8 days' where tenant_id = $1 and room_id = $2`,
      [svc.tenant.tenantId, roomId],
    ),
  );
  const retention = new RetentionWorker({
    db: svc.t.db,
    clock: systemClock,
    rules: activeRetention(retentionRules(MODULES), svc.t.config.retention),
    intervalMs: 3_600_000,
    tenantIds: [svc.tenant.tenantId],
  });
  assert.equal((await retention.pass()).ran, true);
}

describe('resync', () => {
  test('when the changes since the last one received are gone, the room emits resync {recovered: false}, joins live and reads the history', async () => {
    const roomId = await svc.createRoom();
    const { rt } = nodeRealtime(proxy.url, () => svc.token('test:away'));
    clients.push(rt);
    const room = rt.join(roomId);
    await room.ready();
    const received: ChatMessage[] = [];
    room.on('message', (m) => received.push(m));
    const resyncs: unknown[] = [];
    room.on('resync', (r) => resyncs.push(r));
    const joins: (number | null)[] = [];
    room.on('joined', (j) => joins.push(j.resumedFrom));
    for (let i = 0; i < 3; i++) await postMessage(svc, roomId, `seen ${i}`);
    await eventually('three messages', () => received.length === 3 || undefined);
    const position = room.position;

    proxy.cut();
    for (let i = 0; i < 4; i++) await postMessage(svc, roomId, `missed ${i}`);
    await expireChanges(roomId);
    proxy.restore();

    await eventually('the resync', () => resyncs.length === 1 || undefined, { timeoutMs: 30_000 });
    assert.deepEqual(resyncs, [{ recovered: false, reason: 'resync_required' }]);
    await eventually('the live join', () => joins.length === 1 || undefined);
    assert.deepEqual(joins, [null], 'the resume was refused; the room joined live');
    assert.ok(room.position !== undefined && position !== undefined && room.position > position);
    assert.equal(received.length, 3, 'nothing of the gap came as messages');

    await postMessage(svc, roomId, 'live again');
    await eventually('the live message', () => received.length === 4 || undefined);
    assert.equal(received.at(-1)?.text, 'live again');
    const page = await room.history({ limit: 50 });
    assert.deepEqual(
      page.data.map((m) => m.text),
      ['seen 0', 'seen 1', 'seen 2', 'missed 0', 'missed 1', 'missed 2', 'missed 3', 'live again'],
      'the history through the SDK has what the gap held',
    );
    const older = await room.history({ before: 4, limit: 2 });
    assert.deepEqual(
      older.data.map((m) => m.seq),
      [2, 3],
    );
  });
});
