import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isBlockedAddress, matchesEventTypes } from '../../src/modules/webhooks/index.ts';
import { retryDelay } from '../../src/modules/webhooks/worker/schedule.ts';

describe('webhook rules', () => {
  test('event type matching: null, exact, prefix.* at any depth but not the prefix itself', () => {
    assert.equal(matchesEventTypes(null, 'anything.at.all'), true);
    assert.equal(matchesEventTypes(['room.created'], 'room.created'), true);
    assert.equal(matchesEventTypes(['room.created'], 'room.closed'), false);
    assert.equal(matchesEventTypes(['room.created'], 'room.created.extra'), false);
    assert.equal(matchesEventTypes(['auction.*'], 'auction.started'), true);
    assert.equal(matchesEventTypes(['auction.*'], 'auction.bid.placed'), true);
    assert.equal(matchesEventTypes(['auction.*'], 'auction'), false);
    assert.equal(matchesEventTypes(['auction.*'], 'auctions.started'), false);
    assert.equal(matchesEventTypes(['room.created', 'chat.*'], 'chat.message.sent'), true);
  });

  test('blocked addresses: private, loopback, link-local, metadata, mapped forms; public ones pass', () => {
    for (const address of [
      '127.0.0.1',
      '127.255.0.9',
      '10.0.0.1',
      '172.16.5.4',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd00:ec2::254',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:a9fe:a9fe',
      '64:ff9b::10.0.0.1',
      '2002:7f00:0001::1',
      'not-an-ip',
    ]) {
      assert.equal(isBlockedAddress(address), true, `${address} must be blocked`);
    }
    for (const address of [
      '93.184.216.34',
      '1.1.1.1',
      '172.32.0.1',
      '2606:4700:4700::1111',
      '::ffff:8.8.8.8',
    ]) {
      assert.equal(isBlockedAddress(address), false, `${address} is public`);
    }
  });

  test('retry delays follow the schedule, jitter adds at most a tenth, then none remain', () => {
    const schedule = [1000, 5000, 30_000, 300_000, 1_800_000];
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6].map((n) => retryDelay(schedule, n, () => 0)),
      [1000, 5000, 30_000, 300_000, 1_800_000, undefined],
    );
    assert.equal(
      retryDelay(schedule, 1, () => 0.5),
      1050,
    );
    assert.equal(
      retryDelay(schedule, 5, () => 0.999_999),
      1_979_999,
    );
    assert.equal(
      retryDelay([], 1, () => 0),
      undefined,
    );
  });
});
