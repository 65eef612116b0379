import type { GroupTurn, GroupWriter } from '../../src/core/db/group-commit.ts';

/** What a gated writer does around the gate: `started` as a write begins, `finishing` once let through. */
export interface GatedSteps {
  started?(items: readonly string[]): void;
  finishing?(items: readonly string[], turn: GroupTurn): void;
}

/**
 * A group writer whose transactions the test finishes by hand (`releaseAll`). An item `bad` breaks a
 * constraint when written with others (the group is then written item by item) and fails alone.
 */
export function gatedWriter(steps: GatedSteps = {}, options: Partial<GroupWriter<string, string>> = {}) {
  const gates: (() => void)[] = [];
  const writer: GroupWriter<string, string> = {
    async writeGroup(items, turn) {
      steps.started?.(items);
      await new Promise<void>((resolve) => gates.push(resolve));
      if (items.includes('bad') && items.length > 1)
        throw Object.assign(new Error('constraint'), { code: '23505' });
      if (items.includes('bad')) throw new Error('bad item');
      steps.finishing?.(items, turn);
      return items.map((item) => `${item}!`);
    },
    isolates: (error) => (error as { code?: string }).code === '23505',
    ...options,
  };
  const releaseAll = async () => {
    // Lets every queued write start, then finishes its transaction, until none is waiting.
    for (let i = 0; i < 50; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      const gate = gates.shift();
      if (gate !== undefined) gate();
    }
  };
  return { writer, releaseAll };
}
