import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Ajv } from 'ajv';
import { systemClock } from '../../src/core/clock.ts';
import { createServer } from '../../src/core/http/server.ts';
import { testConfig } from '../helper.ts';

// Start-up time (issue 13, finding 9): compiling every route's validators and response serializers when the
// app became ready was seconds of CPU before the service could listen. Each compiles on its route's first use.
const realCompile = Ajv.prototype.compile;
let compiled = 0;
Ajv.prototype.compile = function counted(this: Ajv, ...args: Parameters<Ajv['compile']>) {
  compiled += 1;
  return realCompile.apply(this, args);
} as Ajv['compile'];
after(() => {
  Ajv.prototype.compile = realCompile;
});

test('a route’s schemas compile on its first request, not at start-up, and then validate and serialize as declared', async () => {
  const app = createServer(testConfig({ logLevel: 'silent' }), systemClock);
  const schema = {
    querystring: { type: 'object', properties: { n: { type: 'integer' } }, additionalProperties: false },
    response: { 200: { type: 'object', properties: { n: { type: 'integer' } } } },
  };
  app.get('/probe', { schema }, async (request) => ({ ...(request.query as object), undeclared: 'dropped' }));
  await app.ready();
  assert.equal(compiled, 0, 'nothing is compiled before a request');

  const ok = await app.inject({ method: 'GET', url: '/probe?n=5' });
  assert.equal(ok.statusCode, 200);
  assert.deepEqual(
    ok.json(),
    { n: 5 },
    'query coerced to an integer; the serializer drops what the schema does not declare',
  );
  assert.ok(compiled > 0);

  const bad = await app.inject({ method: 'GET', url: '/probe?n=five' });
  assert.equal(bad.statusCode, 400);
  await app.close();
});
