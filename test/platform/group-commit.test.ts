import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GroupCommits, type GroupWriter } from '../../src/core/db/group-commit.ts';
import { gatedWriter } from '../support/gated-writer.ts';

/** A gated writer recording every group it was given; an item `boom` fails its whole group. */
function recordingWriter(options: Partial<GroupWriter<string, string>> = {}) {
  const groups: string[][] = [];
  const { writer, releaseAll } = gatedWriter(
    {
      started: (items) => groups.push([...items]),
      finishing: (items) => {
        if (items.includes('boom')) throw new Error('database went away');
      },
    },
    options,
  );
  return { writer, groups, releaseAll };
}

describe('group commit', () => {
  test('writes arriving while a key commits go together, in arrival order; keys are independent', async () => {
    const { writer, groups, releaseAll } = recordingWriter();
    const commits = new GroupCommits();
    assert.deepEqual(commits.written('test.write'), { groups: 0, items: 0 });
    const queue = commits.queue('test.write', writer);
    const first = queue.submit('a', 'a1');
    const rest = ['a2', 'a3', 'a4'].map((item) => queue.submit('a', item));
    const other = queue.submit('b', 'b1');
    await releaseAll();
    assert.deepEqual(await Promise.all([first, ...rest, other]), ['a1!', 'a2!', 'a3!', 'a4!', 'b1!']);
    assert.deepEqual(groups, [['a1'], ['b1'], ['a2', 'a3', 'a4']]);
    assert.deepEqual(commits.written('test.write'), { groups: 3, items: 5 });
  });

  test('a group that fails on one item is written item by item, so only that item gets the error', async () => {
    const { writer, groups, releaseAll } = recordingWriter();
    const queue = new GroupCommits().queue('test.write', writer);
    const results = ['x1', 'x2', 'bad', 'x3'].map((item) =>
      queue.submit('k', item).then(
        (value) => ({ value }),
        (error: Error) => ({ error: error.message }),
      ),
    );
    await releaseAll();
    assert.deepEqual(await Promise.all(results), [
      { value: 'x1!' },
      { value: 'x2!' },
      { error: 'bad item' },
      { value: 'x3!' },
    ]);
    assert.deepEqual(groups, [['x1'], ['x2', 'bad', 'x3'], ['x2'], ['bad'], ['x3']]);
  });

  test('any other error fails the whole group, and the key keeps working after it', async () => {
    const { writer, releaseAll } = recordingWriter();
    const queue = new GroupCommits().queue('test.write', writer);
    const settled = ['y1', 'y2', 'boom'].map((item) =>
      queue.submit('k', item).then(
        (value) => value,
        (error: Error) => error.message,
      ),
    );
    await releaseAll();
    assert.deepEqual(await Promise.all(settled), ['y1!', 'database went away', 'database went away']);
    const later = queue.submit('k', 'y4');
    await releaseAll();
    assert.equal(await later, 'y4!');
  });

  test('groups hold at most maxGroup items', async () => {
    const { writer, groups, releaseAll } = recordingWriter({ maxGroup: 2 });
    const queue = new GroupCommits().queue('test.write', writer);
    const all = ['m1', 'm2', 'm3', 'm4', 'm5'].map((item) => queue.submit('k', item));
    await releaseAll();
    assert.deepEqual(await Promise.all(all), ['m1!', 'm2!', 'm3!', 'm4!', 'm5!']);
    assert.deepEqual(groups, [['m1'], ['m2', 'm3'], ['m4', 'm5']]);
  });

  test('each app holds its own queues: the same name in two apps never shares a group', async () => {
    const one = recordingWriter();
    const two = recordingWriter();
    const a = new GroupCommits().queue('test.write', one.writer);
    const b = new GroupCommits().queue('test.write', two.writer);
    const pending = [a.submit('k', 'p1'), b.submit('k', 'q1'), a.submit('k', 'p2'), b.submit('k', 'q2')];
    await Promise.all([one.releaseAll(), two.releaseAll()]);
    assert.deepEqual(await Promise.all(pending), ['p1!', 'q1!', 'p2!', 'q2!']);
    assert.deepEqual(one.groups, [['p1'], ['p2']]);
    assert.deepEqual(two.groups, [['q1'], ['q2']]);
  });
});
