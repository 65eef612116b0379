import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonObject } from '../../../core/realtime/index.ts';
import { type PresenceChange, PresenceDiff } from '../diff.ts';

const actor = (id: string) => ({ type: 'end_user', id, identityProvider: 'test' });
const member = (id: string, state: JsonObject = {}) => ({ actor: actor(id), state });
const join = (id: string, state?: JsonObject): PresenceChange => ({ op: 'join', member: member(id, state) });
const update = (id: string, state: JsonObject): PresenceChange => ({
  op: 'update',
  member: member(id, state),
});
const leave = (id: string): PresenceChange => ({ op: 'leave', actor: actor(id) });

function fold(changes: PresenceChange[]) {
  const diff = new PresenceDiff();
  for (const change of changes) diff.add(change);
  return diff.take('lobby');
}

const ids = (values: JsonObject[]) =>
  values.map((v) => String(((v.actor as JsonObject | undefined) ?? v).id));

/** A client's members after each change's own frame, in order (what `presence.join/.update/.leave` give). */
function applyEach(start: Map<string, JsonObject>, changes: PresenceChange[]): Map<string, JsonObject> {
  const members = new Map(start);
  for (const c of changes) {
    if (c.op === 'leave') members.delete(String(c.actor.id));
    else members.set(String((c.member.actor as JsonObject).id), c.member);
  }
  return members;
}

/** The same client after one diff: its lists are disjoint, so the order they are applied in is free. */
function applyDiff(start: Map<string, JsonObject>, changes: PresenceChange[]): Map<string, JsonObject> {
  const members = new Map(start);
  const frame = fold(changes);
  for (const m of [...frame.joins, ...frame.updates]) members.set(String((m.actor as JsonObject).id), m);
  for (const a of frame.leaves) members.delete(String(a.id));
  return members;
}

describe('a tick of presence changes folded into one presence.diff', () => {
  test('each actor once, by its last change: join+leave is a leave, leave+join a join', () => {
    const frame = fold([join('a'), join('b'), leave('a'), leave('c'), join('c', { back: true })]);
    assert.deepEqual(ids(frame.joins), ['b', 'c']);
    assert.deepEqual(frame.joins[1]?.state, { back: true });
    assert.deepEqual(ids(frame.leaves), ['a']);
    assert.deepEqual(frame.updates, []);
  });

  test('join+update is a join with the newest state; updates keep the last; update+leave is a leave', () => {
    const frame = fold([
      join('a', { v: 1 }),
      update('b', { v: 1 }),
      update('a', { v: 2 }),
      update('b', { v: 2 }),
      update('c', { v: 1 }),
      leave('c'),
    ]);
    assert.deepEqual(
      frame.joins.map((m) => [(m.actor as JsonObject).id, m.state]),
      [['a', { v: 2 }]],
    );
    assert.deepEqual(
      frame.updates.map((m) => [(m.actor as JsonObject).id, m.state]),
      [['b', { v: 2 }]],
    );
    assert.deepEqual(ids(frame.leaves), ['c']);
  });

  test('take starts over; an empty tick is an empty frame', () => {
    const diff = new PresenceDiff();
    diff.add(join('a'));
    assert.equal(diff.size, 1);
    assert.deepEqual(ids(diff.take('r').joins), ['a']);
    assert.deepEqual(diff.take('r'), {
      type: 'presence.diff',
      room: 'r',
      joins: [],
      updates: [],
      leaves: [],
    });
  });

  test('applying the diff leaves a client with the members the single frames would (random ticks)', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let run = 0; run < 500; run++) {
      const start = new Map<string, JsonObject>();
      for (const id of ['a', 'b']) if (random() < 0.5) start.set(id, member(id, { start: true }));
      const changes: PresenceChange[] = [];
      for (let i = Math.floor(random() * 8); i > 0; i--) {
        const id = ['a', 'b', 'c'][Math.floor(random() * 3)] ?? 'a';
        const r = random();
        changes.push(r < 0.35 ? join(id, { i }) : r < 0.7 ? update(id, { i }) : leave(id));
      }
      assert.deepEqual(applyDiff(start, changes), applyEach(start, changes), JSON.stringify(changes));
    }
  });
});
