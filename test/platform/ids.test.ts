import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ID_PREFIXES, type IdKind, idPattern, idTimestamp, isId, newId } from '../../src/core/ids.ts';

const KINDS = Object.keys(ID_PREFIXES) as IdKind[];

describe('prefix ids', () => {
  test('format: <prefix>_<26 lowercase Crockford base32>, URL-safe', () => {
    for (const kind of KINDS) {
      const id = newId(kind, Date.now());
      assert.match(id, new RegExp(`^${ID_PREFIXES[kind]}_[0-9a-hjkmnp-tv-z]{26}$`));
      assert.equal(encodeURIComponent(id), id);
      assert.ok(isId(kind, id), `${id} is a valid ${kind} id`);
      assert.match(id, new RegExp(idPattern(kind)));
    }
  });

  test('the timestamp is recoverable', () => {
    const at = Date.UTC(2030, 5, 1, 12, 0, 0, 123);
    assert.equal(idTimestamp(newId('room', at)), at);
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
    const ids = Array.from({ length: 1000 }, (_, i) => newId('message', base + i));
    ids.forEach((id, i) => {
      assert.equal(idTimestamp(id), base + i);
    });
    assert.deepEqual([...ids].sort(), ids);
    const shuffled = [...ids].reverse();
    assert.deepEqual(shuffled.sort(), ids);
  });

  test('ids minted within one millisecond strictly increase', () => {
    const at = Date.UTC(2032, 0, 1);
    const ids = Array.from({ length: 1000 }, () => newId('bid', at));
    for (let i = 1; i < ids.length; i++) {
      const previous = ids[i - 1] ?? '';
      const current = ids[i] ?? '';
      assert.ok(previous < current, `${previous} < ${current}`);
    }
  });

  test('a clock stepping backwards never produces a smaller id', () => {
    const first = newId('payment', Date.UTC(2033, 0, 1));
    const second = newId('payment', Date.UTC(2033, 0, 1) - 60_000);
    assert.ok(second > first);
  });

  test('unique over many', () => {
    const count = 100_000;
    const seen = new Set<string>();
    for (let i = 0; i < count; i++) seen.add(newId('webhookDelivery', Date.now()));
    assert.equal(seen.size, count);
  });
});
