import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GroupCommits, type GroupWriter } from '../../src/core/db/group-commit.ts';
import { gatedWriter } from '../support/gated-writer.ts';

/**
 * A writer whose writes the test finishes by hand; `log` records, in order, each write's start, its
 * after-commit work and each answer the submitters saw.
 */
function pipelinedWriter(options: Partial<GroupWriter<string, string>> = {}) {
  const log: string[] = [];
  const { writer, releaseAll } = gatedWriter(
    {
      started: (items) => log.push(`write ${items.join(',')}`),
      finishing: (items, turn) => {
        turn.afterCommit(() => log.push(`fanout ${items.join(',')}`));
        if (items.includes('loud')) turn.afterCommit(() => assert.fail('fan-out failed'));
        turn.committing();
      },
    },
    options,
  );
  const answered = (promise: Promise<string>) =>
    promise.then(
      (value) => {
        log.push(`answer ${value}`);
        return value;
      },
      (error: Error) => {
        log.push(`error ${error.message}`);
        return error.message;
      },
    );
  return { writer, log, releaseAll, answered };
}

describe('group commit, pipelined', () => {
  test("the next group's write starts before the group before publishes and answers, in group order", async () => {
    const { writer, log, releaseAll, answered } = pipelinedWriter();
    const queue = new GroupCommits().queue('test.write', writer);
    const all = ['a1', 'a2', 'a3'].map((item) => answered(queue.submit('k', item)));
    await releaseAll();
    assert.deepEqual(await Promise.all(all), ['a1!', 'a2!', 'a3!']);
    // (An answer is seen a microtask after its group settles: two groups settled together show both
    // fan-outs first; the orders below are the guarantee.)
    const at = (line: string) => log.indexOf(line);
    assert.ok(at('write a2,a3') < at('fanout a1'), log.join(' | '));
    assert.ok(at('fanout a1') < at('answer a1!'), log.join(' | '));
    assert.ok(at('fanout a1') < at('fanout a2,a3'), log.join(' | '));
    assert.ok(at('fanout a2,a3') < at('answer a2!'), log.join(' | '));
    assert.ok(at('answer a1!') < at('answer a2!') && at('answer a2!') < at('answer a3!'), log.join(' | '));
  });

  test('a group whose after-commit work throws fails its own items only; the key keeps working', async () => {
    const { writer, releaseAll, answered } = pipelinedWriter();
    const queue = new GroupCommits().queue('test.write', writer);
    const all = ['b1', 'loud', 'b2'].map((item) => answered(queue.submit('k', item)));
    await releaseAll();
    const results = await Promise.all(all);
    assert.equal(results[0], 'b1!');
    assert.match(results[1] ?? '', /fan-out failed/);
    assert.match(results[2] ?? '', /fan-out failed/);
    const later = answered(queue.submit('k', 'b3'));
    await releaseAll();
    assert.equal(await later, 'b3!');
  });

  test("a group written again item by item publishes only the items' own writes, in order", async () => {
    const { writer, log, releaseAll, answered } = pipelinedWriter();
    const queue = new GroupCommits().queue('test.write', writer);
    const all = ['c1', 'c2', 'bad', 'c3'].map((item) => answered(queue.submit('k', item)));
    await releaseAll();
    assert.deepEqual(await Promise.all(all), ['c1!', 'c2!', 'bad item', 'c3!']);
    assert.deepEqual(
      log.filter((line) => !line.startsWith('write')),
      ['fanout c1', 'answer c1!', 'fanout c2', 'answer c2!', 'error bad item', 'fanout c3', 'answer c3!'],
    );
  });

  test('the phases count each item once (wait) and each written group once (the others)', async () => {
    const { writer, releaseAll } = pipelinedWriter();
    const commits = new GroupCommits();
    const queue = commits.queue('test.write', writer);
    const zero = commits.phases('test.write');
    assert.deepEqual(zero.wait, { count: 0, totalMs: 0, maxMs: 0 });
    const all = ['d1', 'd2', 'd3', 'd4'].map((item) => queue.submit('k', item));
    await releaseAll();
    await Promise.all(all);
    const phases = commits.phases('test.write');
    assert.equal(phases.wait.count, 4);
    for (const name of ['statement', 'commit', 'handoff', 'fanout'] as const) {
      assert.equal(phases[name].count, 2, name);
      assert.ok(phases[name].totalMs >= 0 && phases[name].maxMs <= phases[name].totalMs, name);
    }
    // A copy: reading the phases again after more writes does not change the first reading.
    const more = queue.submit('k', 'd5');
    await releaseAll();
    await more;
    assert.equal(phases.wait.count, 4);
    assert.equal(commits.phases('test.write').wait.count, 5);
  });
});
