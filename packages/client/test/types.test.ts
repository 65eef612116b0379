import assert from 'node:assert/strict';
import { test } from 'node:test';
import { REGENERATE_COMMAND, staleFiles } from '../scripts/generate-types.mjs';

test("the client's generated types match the service's OpenAPI document", async () => {
  const stale = await staleFiles();
  assert.deepEqual(
    stale,
    [],
    `stale client types (${stale.join(', ')}): the OpenAPI document changed; run \`${REGENERATE_COMMAND}\` and commit the result`,
  );
});
