import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../../core/http/errors.ts';
import { PAYMENT_STATUSES } from '../schema/common.ts';
import { TRANSITIONS, transition } from '../states.ts';

describe('payments: the transition table', () => {
  test('every status has its legal moves; terminal ones none; failures go back to requires_payment_method', () => {
    for (const status of PAYMENT_STATUSES) assert.ok(Array.isArray(TRANSITIONS[status]));
    assert.deepEqual(TRANSITIONS.succeeded, []);
    assert.deepEqual(TRANSITIONS.canceled, []);
    for (const from of ['requires_confirmation', 'requires_action', 'processing'] as const) {
      assert.ok(TRANSITIONS[from].includes('requires_payment_method'), from);
    }
    for (const from of PAYMENT_STATUSES) {
      const terminal = from === 'succeeded' || from === 'canceled';
      assert.equal(TRANSITIONS[from].includes('canceled'), !terminal, from);
    }
    assert.ok(!TRANSITIONS.requires_payment_method.includes('succeeded'), 'no success without confirmation');
    assert.ok(!TRANSITIONS.requires_capture.includes('requires_payment_method'));
  });
});

describe('payments: the one transition function', () => {
  test('every pair of statuses: the table’s moves pass, every other one is 409 conflict naming both', () => {
    let legal = 0;
    let illegal = 0;
    for (const from of PAYMENT_STATUSES) {
      for (const to of PAYMENT_STATUSES) {
        if (TRANSITIONS[from].includes(to)) {
          assert.equal(transition('pay_x', from, to), to);
          legal++;
          continue;
        }
        assert.throws(
          () => transition('pay_x', from, to),
          (error: unknown) =>
            error instanceof AppError &&
            error.status === 409 &&
            error.code === 'conflict' &&
            error.message === `payment pay_x is ${from}; it cannot become ${to}`,
          `${from} -> ${to}`,
        );
        illegal++;
      }
    }
    assert.equal(legal + illegal, PAYMENT_STATUSES.length ** 2);
    assert.equal(legal, 19, 'the table of issue #15');
  });
});
