import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MODULES } from '../../src/app.ts';
import { CORE_ID_PREFIXES, defineIds, idPattern, idTimestamp, isId, newId } from '../../src/core/ids.ts';
import type { ModuleManifest } from '../../src/core/modules/manifest.ts';
import { ModuleRegistry } from '../../src/core/modules/registry.ts';

/** Every kind the service mints, core's and the modules' (from their manifests). */
const ALL_PREFIXES: Record<string, string> = {
  ...CORE_ID_PREFIXES,
  ...new ModuleRegistry(MODULES).idPrefixes,
};
const ALL = defineIds(new ModuleRegistry(MODULES).idPrefixes);
const KINDS = Object.keys(ALL_PREFIXES);

/** The prefixes stored ids carry: they never change, wherever their kind is declared. */
const STORED_PREFIXES = {
  tenant: 'ten',
  user: 'usr',
  membership: 'mem',
  invitation: 'inv',
  apiKey: 'key',
  productKey: 'pk',
  actor: 'act',
  session: 'ses',
  room: 'room',
  message: 'msg',
  auction: 'auc',
  bid: 'bid',
  payment: 'pay',
  refund: 're',
  ledgerTransaction: 'ltx',
  event: 'evt',
  analyticsEvent: 'aev',
  webhookEndpoint: 'whe',
  webhookDelivery: 'whd',
  operator: 'op',
  mobileBuild: 'mbd',
  request: 'req',
};

/** A module that declares nothing but its id kinds. */
function withIds(name: string, idPrefixes: Record<string, string>): ModuleManifest {
  return {
    name,
    title: name,
    description: name,
    version: '1.0.0',
    scopes: [],
    sessionScopes: [],
    eventTypes: [],
    configSchema: {} as ModuleManifest['configSchema'],
    actions: [],
    idPrefixes,
  };
}

describe('id kinds come from core and the manifests', () => {
  test('every kind keeps the prefix its stored ids carry (new kinds may join)', () => {
    const kept = Object.fromEntries(Object.keys(STORED_PREFIXES).map((kind) => [kind, ALL_PREFIXES[kind]]));
    assert.deepEqual(kept, STORED_PREFIXES);
  });

  test("a module's helpers mint its own kinds and core's, typed by their names", () => {
    const polls = defineIds({ poll: 'poll', pollVote: 'pvt' });
    assert.deepEqual(polls.prefixes, { poll: 'poll', pollVote: 'pvt' });
    assert.match(polls.newId('poll', Date.now()), new RegExp(polls.idPattern('poll')));
    assert.ok(polls.isId('pollVote', polls.newId('pollVote', Date.now())));
    assert.ok(polls.isId('event', newId('event', Date.now())), "core's kinds too");
    assert.equal(polls.isId('poll', polls.newId('pollVote', Date.now())), false);
    // @ts-expect-error a kind the module does not declare does not compile
    polls.idPattern('room');
  });

  test("a module may not take core's kinds or prefixes, nor malformed prefixes", () => {
    assert.throws(() => defineIds({ tenant: 'tnt' }), /id kind tenant is core's/);
    assert.throws(() => defineIds({ ticket: 'ten' }), /id prefix ten of ticket is core's \(tenant\)/);
    assert.throws(() => defineIds({ poll: 'Poll_' }), /id prefix "Poll_" of poll is not 1-8 lower-case/);
    assert.throws(() => defineIds({ poll: 'pl', pick: 'pl' }), /id prefix pl is given to poll and pick/);
    assert.throws(
      () => new ModuleRegistry([withIds('polls', { session: 'pss' })]),
      /module polls: id kind session is core's/,
    );
  });

  test('two modules may not declare the same kind or prefix: the app does not start', () => {
    assert.throws(
      () => new ModuleRegistry([...MODULES, withIds('ballots', { room: 'blt' })]),
      /id kind room declared by rooms and ballots/,
    );
    assert.throws(
      () => new ModuleRegistry([...MODULES, withIds('ballots', { ballot: 'msg' })]),
      /id prefix msg declared by chat and ballots/,
    );
  });
});

describe('prefix ids', () => {
  test('format: <prefix>_<26 lowercase Crockford base32>, URL-safe', () => {
    for (const kind of KINDS) {
      const id = ALL.newId(kind, Date.now());
      assert.match(id, new RegExp(`^${ALL_PREFIXES[kind]}_[0-9a-hjkmnp-tv-z]{26}$`));
      assert.equal(encodeURIComponent(id), id);
      assert.ok(ALL.isId(kind, id), `${id} is a valid ${kind} id`);
      assert.match(id, new RegExp(ALL.idPattern(kind)));
    }
  });

  test('the timestamp is recoverable', () => {
    const at = Date.UTC(2030, 5, 1, 12, 0, 0, 123);
    assert.equal(idTimestamp(ALL.newId('room', at)), at);
  });

  test('validation refuses wrong prefix, length, alphabet and overflow', () => {
    const good = newId('tenant', Date.now());
    const suffix = good.slice('ten_'.length);
    const refused: unknown[] = [
      `usr_${suffix}`,
      `ten${suffix}`,
      `ten_${suffix.slice(1)}`,
      `ten_${suffix}0`,
      `ten_${suffix.toUpperCase()}`,
      `ten_${suffix.slice(0, -1)}u`,
      `ten_${suffix.slice(0, -1)}i`,
      `ten_${suffix.slice(0, -1)}l`,
      `ten_${suffix.slice(0, -1)}o`,
      `ten_8${suffix.slice(1)}`,
      ` ${good}`,
      '',
      42,
      null,
      undefined,
    ];
    for (const value of refused) {
      assert.equal(isId('tenant', value), false, `${JSON.stringify(value)} refused`);
      if (typeof value === 'string') assert.doesNotMatch(value, new RegExp(idPattern('tenant')));
    }
    assert.equal(isId('tenant', good), true);
  });

  test('ids sort by creation time across milliseconds, whatever their random part', () => {
    // Each new millisecond draws fresh random bits, so a smaller random part must still sort later.
    const base = Date.UTC(2031, 0, 1);
    const ids = Array.from({ length: 1000 }, (_, i) => ALL.newId('message', base + i));
    ids.forEach((id, i) => {
      assert.equal(idTimestamp(id), base + i);
    });
    assert.deepEqual([...ids].sort(), ids);
    const shuffled = [...ids].reverse();
    assert.deepEqual(shuffled.sort(), ids);
  });

  test('ids minted within one millisecond strictly increase', () => {
    const at = Date.UTC(2032, 0, 1);
    const ids = Array.from({ length: 1000 }, () => ALL.newId('bid', at));
    for (let i = 1; i < ids.length; i++) {
      const previous = ids[i - 1] ?? '';
      const current = ids[i] ?? '';
      assert.ok(previous < current, `${previous} < ${current}`);
    }
  });

  test('a clock stepping backwards never produces a smaller id', () => {
    const first = ALL.newId('payment', Date.UTC(2033, 0, 1));
    const second = ALL.newId('payment', Date.UTC(2033, 0, 1) - 60_000);
    assert.ok(second > first);
  });

  test('unique over many', () => {
    const count = 100_000;
    const seen = new Set<string>();
    for (let i = 0; i < count; i++) seen.add(ALL.newId('webhookDelivery', Date.now()));
    assert.equal(seen.size, count);
  });
});
