import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ActionDefinition } from '../../src/core/modules/manifest.ts';
import { roomsModule } from '../../src/modules/rooms/manifest.ts';
import { CONFIRM_POLICIES, needsConfirmation } from '../../src/surfaces/mcp/policy.ts';

const action = (access: ActionDefinition['access'], confirmation: ActionDefinition['confirmation']) => {
  const base = roomsModule.actions[0];
  if (base === undefined) throw new Error('rooms declares no action');
  return { ...base, access, confirmation };
};

test('which tools need a human, per policy', () => {
  const cases: [ActionDefinition, Record<(typeof CONFIRM_POLICIES)[number], boolean>][] = [
    [action('read', 'never'), { required_only: false, destructive: false, writes: false, all: true }],
    [action('write', 'never'), { required_only: false, destructive: false, writes: true, all: true }],
    [action('destructive', 'never'), { required_only: false, destructive: true, writes: true, all: true }],
    [action('write', 'destructive'), { required_only: false, destructive: true, writes: true, all: true }],
    // A module's `always` is a floor no tenant policy lowers.
    [action('read', 'always'), { required_only: true, destructive: true, writes: true, all: true }],
  ];
  for (const [tool, expected] of cases) {
    for (const policy of CONFIRM_POLICIES) {
      assert.equal(
        needsConfirmation(policy, tool),
        expected[policy],
        `${tool.access}/${tool.confirmation} under ${policy}`,
      );
    }
  }
});
